import ipaddr from 'ipaddr.js';

/** RFC 4291 / IANA: the only IPv6 block allocated for global unicast; everything else is special or reserved. */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
/** Deprecated IPv4-compatible addresses (RFC 4291 2.5.5.1); `::` and `::1` are classified before. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');
/** RFC 8215 local-use NAT64: ipaddr.js files it under rfc6052 with the well-known prefix. */
const LOCAL_USE_NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b:1::/48');
/** The RFC 6052 prefix lengths a local-use NAT64 prefix inside the /48 may have, the usual /96 first. */
const LOCAL_USE_NAT64_PREFIXES = [96, 64, 56, 48] as const;

/**
 * The special-purpose range an address is in, as ipaddr.js names it (`unicast` when none), with
 * what it leaves out: IPv6 outside 2000::/3 is `reserved`, or `ipv4Compatible` inside ::/96, and
 * 64:ff9b:1::/48 is `rfc8215` rather than the well-known NAT64 prefix's `rfc6052`.
 */
export function addressRange(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  if (address.kind() === 'ipv4') return address.range();
  const v6 = address as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'rfc6052' && v6.match(LOCAL_USE_NAT64)) return 'rfc8215';
  if (range !== 'unicast' || v6.match(GLOBAL_UNICAST)) return range;
  return v6.match(IPV4_COMPATIBLE) ? 'ipv4Compatible' : 'reserved';
}

/** RFC 6052 2.2: the IPv4 address follows the prefix, skipping bits 64-71. */
function nat64IPv4(bytes: readonly number[], prefixLength: number): ipaddr.IPv4 {
  const indexes = [];
  for (let i = prefixLength / 8; indexes.length < 4; i++) if (i !== 8) indexes.push(i);
  return new ipaddr.IPv4(indexes.map((i) => bytes[i]!));
}

/**
 * The IPv4 addresses an IPv6 address carries, which a dual-stack socket, translator or tunnel
 * ends up talking to: the last 32 bits of IPv4-mapped, SIIT (`::ffff:0:a.b.c.d`),
 * IPv4-compatible and well-known NAT64 addresses; every reading of a local-use NAT64 address (its
 * prefix length is the operator's choice, not visible in the address); bits 16-47 of 6to4; the
 * Teredo server (bits 32-63) and client (the last 32 bits, inverted).
 */
export function embeddedIPv4(address: ipaddr.IPv6): readonly ipaddr.IPv4[] {
  const bytes = address.toByteArray();
  switch (addressRange(address)) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'ipv4Compatible':
    case 'rfc6052':
      return [nat64IPv4(bytes, 96)];
    case 'rfc8215':
      return LOCAL_USE_NAT64_PREFIXES.map((length) => nat64IPv4(bytes, length));
    case '6to4':
      return [new ipaddr.IPv4(bytes.slice(2, 6))];
    case 'teredo':
      return [new ipaddr.IPv4(bytes.slice(4, 8)), new ipaddr.IPv4(bytes.slice(12, 16).map((byte) => byte ^ 0xff))];
    default:
      return [];
  }
}
