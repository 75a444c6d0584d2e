import ipaddr from 'ipaddr.js';
import { addressRange, embeddedIPv4 } from './address-range.js';
import { parseIpLiteral } from './ip-literal.js';

/**
 * Cloud instance-metadata endpoints (AWS/GCP/Azure/OpenStack IPv4 and AWS IPv6, Alibaba). They stay
 * blocked even when private addresses are allowed: nothing legitimate serves a recording there, and
 * they hand out credentials.
 */
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

/**
 * Transition ranges that reach whatever IPv4 address they carry (a dual-stack socket, a NAT64
 * translator, a 6to4 relay, a Teredo tunnel): they are judged by that address alone, so NAT64 in an
 * IPv6-only network and 6to4 or Teredo peers with public addresses keep working.
 */
const CARRIER_RANGES = new Set(['ipv4Mapped', 'rfc6052', '6to4', 'teredo']);

export interface AddressPolicy {
  /** The host's allowance (`CALLS_ALLOW_PRIVATE_URLS`, `AUTH_ALLOW_PRIVATE_PROVIDER_URLS`): loopback, private, link-local etc. are allowed (metadata never is). */
  readonly allowPrivate: boolean;
  /** Narrower than `allowPrivate`: only these CIDRs (e.g. `127.0.0.1/32`) are let through besides public unicast. */
  readonly allowCidrs?: readonly string[];
}

function inAllowedCidr(address: ipaddr.IPv4 | ipaddr.IPv6, cidrs: readonly string[]): boolean {
  return cidrs.some((cidr) => {
    const [network, bits] = ipaddr.parseCIDR(cidr);
    return network.kind() === address.kind() && address.match([network, bits] as [typeof address, number]);
  });
}

/** The verdict on one address by its own range, without looking at what it carries. */
function rangeBlockReason(address: ipaddr.IPv4 | ipaddr.IPv6, policy: AddressPolicy): string | null {
  if (METADATA_ADDRESSES.has(address.toString())) return 'a cloud metadata address';
  if (policy.allowPrivate || inAllowedCidr(address, policy.allowCidrs ?? [])) return null;
  const range = addressRange(address);
  return range === 'unicast' || CARRIER_RANGES.has(range) ? null : `a ${range} address`;
}

/**
 * Returns why `ip` must not be connected to, or null when it may. Everything that is not global
 * unicast is refused: loopback, private, linkLocal, uniqueLocal, carrierGradeNat, unspecified,
 * multicast, broadcast, reserved (documentation, benchmarking, IPv6 outside 2000::/3), discard,
 * ORCHIDs, site-local. An IPv6 address that carries IPv4 addresses (IPv4-compatible, SIIT, NAT64,
 * 6to4, Teredo) is refused when any of them is; an IPv4-mapped one is judged as its IPv4 address.
 */
export function addressBlockReason(ip: string, policy: AddressPolicy): string | null {
  const address = parseIpLiteral(ip);
  if (!address) return 'not an IP address';
  if (address.kind() === 'ipv4') return rangeBlockReason(address, policy);
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return rangeBlockReason(v6.toIPv4Address(), policy);
  for (const carried of embeddedIPv4(v6)) {
    const reason = rangeBlockReason(carried, policy);
    if (reason) return `a ${addressRange(v6)} address embedding ${carried.toString()}, ${reason}`;
  }
  return rangeBlockReason(v6, policy);
}
