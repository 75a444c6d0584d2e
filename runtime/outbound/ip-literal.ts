import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Parses an IP address exactly as the socket will read it, or returns null. IPv4 must be plain
 * dotted decimal (net's own test, so `0177.0.0.1` or `127.1` never reach a parser that reads them
 * differently from the connect call). IPv6 text goes through the WHATWG host parser first: ipaddr.js
 * reads the IPv4-compatible `::127.0.0.1` as the IPv4-mapped `::ffff:127.0.0.1`, while the socket
 * connects to `::7f00:1`; the URL parser's all-hex output is read the same by both. A zone
 * (`fe80::1%eth0`) does not change which range the address is in, so it is dropped.
 */
export function parseIpLiteral(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const family = isIP(text);
  if (family === 4) return ipaddr.IPv4.parse(text);
  if (family !== 6) return null;
  const [address] = text.split('%');
  let host: string;
  try {
    host = new URL(`http://[${address}]/`).hostname;
  } catch {
    return null;
  }
  return ipaddr.IPv6.parse(host.slice(1, -1));
}
