import ipaddr from 'ipaddr.js';

/**
 * Cloud instance-metadata endpoints (AWS/GCP/Azure/OpenStack IPv4 and AWS IPv6, Alibaba). They stay
 * blocked even when private addresses are allowed: nothing legitimate serves a recording there, and
 * they hand out credentials.
 */
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

export interface AddressPolicy {
  /** `CALLS_ALLOW_PRIVATE_URLS=true`: loopback, private, link-local etc. are allowed (metadata never is). */
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

/**
 * Returns why `ip` must not be connected to, or null when it may. Everything that ipaddr.js does
 * not classify as global `unicast` is refused: loopback, private, linkLocal, uniqueLocal,
 * carrierGradeNat, unspecified, multicast, broadcast, reserved, and the IPv6 transition ranges
 * (NAT64, 6to4, Teredo) that can tunnel to any IPv4 address. IPv4-mapped IPv6 is judged as the IPv4
 * address it carries.
 */
export function addressBlockReason(ip: string, policy: AddressPolicy): string | null {
  if (!ipaddr.isValid(ip)) return 'not an IP address';
  let address = ipaddr.parse(ip);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    address = (address as ipaddr.IPv6).toIPv4Address();
  }
  const normalized = address.toNormalizedString();
  const canonical = address.kind() === 'ipv6' ? ipaddr.IPv6.parse(normalized).toString() : normalized;
  if (METADATA_ADDRESSES.has(canonical)) return 'a cloud metadata address';
  if (policy.allowPrivate || inAllowedCidr(address, policy.allowCidrs ?? [])) return null;
  const range = address.range();
  return range === 'unicast' ? null : `a ${range} address`;
}
