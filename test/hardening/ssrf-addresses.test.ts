import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addressBlockReason, type AddressPolicy } from '../../runtime/outbound/address-policy.js';
import { FetchError } from '../../runtime/outbound/errors.js';
import { fetchRecording } from '../../runtime/calls/fetch/fetch-recording.js';
import { guardedRequest } from '../../runtime/outbound/guarded-request.js';
import { checkOutboundUrl, redirectTarget } from '../../runtime/outbound/outbound-url.js';
import { confineToLoopback, type LoopbackConfinement } from './loopback-only.js';

/**
 * The SSRF address table: every special-purpose IPv4 and IPv6 range, and every spelling of an IPv6
 * address that carries an IPv4 one, with the exact reason it is refused; then the same table
 * through each way an address reaches the socket (a URL literal at submit, a redirect target, a DNS
 * answer, a literal host handed straight to the guarded request).
 */

const strict: AddressPolicy = { allowPrivate: false };
const open: AddressPolicy = { allowPrivate: true };

const IPV4_REFUSED: readonly (readonly [string, string])[] = [
  ['0.0.0.0', 'a unspecified address'],
  ['0.1.2.3', 'a unspecified address'],
  ['10.1.2.3', 'a private address'],
  ['100.64.0.1', 'a carrierGradeNat address'],
  ['100.127.255.254', 'a carrierGradeNat address'],
  ['100.100.100.200', 'a cloud metadata address'],
  ['127.0.0.1', 'a loopback address'],
  ['127.255.255.254', 'a loopback address'],
  ['169.254.1.1', 'a linkLocal address'],
  ['169.254.169.254', 'a cloud metadata address'],
  ['172.16.0.1', 'a private address'],
  ['172.31.255.254', 'a private address'],
  ['192.0.0.8', 'a reserved address'],
  ['192.0.2.1', 'a reserved address'],
  ['192.88.99.1', 'a reserved address'],
  ['192.168.1.1', 'a private address'],
  ['198.18.0.1', 'a reserved address'],
  ['198.19.255.254', 'a reserved address'],
  ['198.51.100.1', 'a reserved address'],
  ['203.0.113.1', 'a reserved address'],
  ['224.0.0.1', 'a multicast address'],
  ['239.255.255.250', 'a multicast address'],
  ['240.0.0.1', 'a reserved address'],
  ['255.255.255.254', 'a reserved address'],
  ['255.255.255.255', 'a broadcast address'],
];

const IPV6_REFUSED: readonly (readonly [string, string])[] = [
  ['::', 'a unspecified address'],
  ['::1', 'a loopback address'],
  ['0:0:0:0:0:0:0:1', 'a loopback address'],
  ['100::1', 'a discard address'],
  ['100:0:0:1::1', 'a reserved address'],
  ['2001:1::1', 'a reserved address'],
  ['2001:2::1', 'a benchmarking address'],
  ['2001:db8::1', 'a reserved address'],
  ['2001:10::1', 'a deprecatedOrchid address'],
  ['2001:20::1', 'a orchid2 address'],
  ['3fff::1', 'a reserved address'],
  ['4000::1', 'a reserved address'],
  ['::1:0:0:0', 'a reserved address'],
  ['5f00::1', 'a segmentRouting address'],
  ['fc00::1', 'a uniqueLocal address'],
  ['fd12:3456::1', 'a uniqueLocal address'],
  ['fd00:ec2::254', 'a cloud metadata address'],
  ['fe80::1', 'a linkLocal address'],
  ['fec0::1', 'a deprecatedSiteLocal address'],
  ['ff02::1', 'a multicast address'],
  ['ff0e::1', 'a multicast address'],
];

const compatible = (v4: string, reason: string): string => `a ipv4Compatible address embedding ${v4}, ${reason}`;

/** IPv6 addresses carrying an IPv4 address, in every spelling the socket accepts. */
const CARRIERS_REFUSED: readonly (readonly [string, string])[] = [
  // IPv4-compatible ::/96 (deprecated): refused on its own, and named by what it carries.
  ['::127.0.0.1', compatible('127.0.0.1', 'a loopback address')],
  ['::7f00:1', compatible('127.0.0.1', 'a loopback address')],
  ['0:0:0:0:0:0:127.0.0.1', compatible('127.0.0.1', 'a loopback address')],
  ['::7F00:1', compatible('127.0.0.1', 'a loopback address')],
  ['::0.0.0.2', compatible('0.0.0.2', 'a unspecified address')],
  ['::10.0.0.1', compatible('10.0.0.1', 'a private address')],
  ['::a9fe:a9fe', compatible('169.254.169.254', 'a cloud metadata address')],
  ['::8.8.8.8', 'a ipv4Compatible address'],
  ['::808:808', 'a ipv4Compatible address'],
  // IPv4-mapped ::ffff:0:0/96: the IPv4 address itself on a dual-stack socket.
  ['::ffff:127.0.0.1', 'a loopback address'],
  ['::ffff:7f00:1', 'a loopback address'],
  ['::FFFF:7F00:1', 'a loopback address'],
  ['0:0:0:0:0:ffff:7f00:1', 'a loopback address'],
  ['0000:0000:0000:0000:0000:ffff:127.0.0.1', 'a loopback address'],
  ['::ffff:a00:1', 'a private address'],
  ['::ffff:0.0.0.0', 'a unspecified address'],
  ['::ffff:169.254.169.254', 'a cloud metadata address'],
  // SIIT ::ffff:0:0:0/96 (RFC 6145, deprecated): refused on its own.
  ['::ffff:0:127.0.0.1', 'a rfc6145 address embedding 127.0.0.1, a loopback address'],
  ['::ffff:0:7f00:1', 'a rfc6145 address embedding 127.0.0.1, a loopback address'],
  ['::ffff:0:8.8.8.8', 'a rfc6145 address'],
  // NAT64: the well-known prefix is judged by what it carries; local-use is not globally reachable.
  ['64:ff9b::a00:1', 'a rfc6052 address embedding 10.0.0.1, a private address'],
  ['64:ff9b::10.0.0.1', 'a rfc6052 address embedding 10.0.0.1, a private address'],
  ['64:ff9b::127.0.0.1', 'a rfc6052 address embedding 127.0.0.1, a loopback address'],
  ['64:ff9b::c0a8:101', 'a rfc6052 address embedding 192.168.1.1, a private address'],
  ['64:ff9b::a9fe:a9fe', 'a rfc6052 address embedding 169.254.169.254, a cloud metadata address'],
  ['64:ff9b:1::a00:1', 'a rfc8215 address embedding 10.0.0.1, a private address'],
  ['64:ff9b:1::808:808', 'a rfc8215 address embedding 0.0.0.8, a unspecified address'],
  // 6to4 2002:AABB:CCDD::/48.
  ['2002:7f00:1::', 'a 6to4 address embedding 127.0.0.1, a loopback address'],
  ['2002:a00:1::1', 'a 6to4 address embedding 10.0.0.1, a private address'],
  ['2002:a9fe:a9fe::', 'a 6to4 address embedding 169.254.169.254, a cloud metadata address'],
  ['2002:c058:6301::', 'a 6to4 address embedding 192.88.99.1, a reserved address'],
  ['2002::', 'a 6to4 address embedding 0.0.0.0, a unspecified address'],
  // Teredo 2001:0::/32: server in bits 32-63, client in the last 32 bits inverted.
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'a teredo address embedding 127.0.0.1, a loopback address'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'a teredo address embedding 192.0.2.45, a reserved address'],
  ['2001:0:4136:e378::5601:5601', 'a teredo address embedding 169.254.169.254, a cloud metadata address'],
  ['2001:0:a00:1::f7f7:f7f7', 'a teredo address embedding 10.0.0.1, a private address'],
];

const REFUSED = [...IPV4_REFUSED, ...IPV6_REFUSED, ...CARRIERS_REFUSED];

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '2606:4700::1111',
  '2001:4860:4860::8888',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '64:ff9b::808:808',
  '64:ff9b::8.8.8.8',
  '2002:808:808::',
  '2002:0808:0808::1',
  '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
];

describe('the address policy', () => {
  it.each(REFUSED)('refuses %s as %s', (ip, reason) => {
    expect(addressBlockReason(ip, strict)).toBe(reason);
  });

  it('reads a zone-scoped address by its range', () => {
    expect(addressBlockReason('fe80::1%eth0', strict)).toBe('a linkLocal address');
  });

  it.each(PUBLIC)('allows the public address %s', (ip) => {
    expect(addressBlockReason(ip, strict)).toBeNull();
  });

  it.each(['0177.0.0.1', '127.1', '0x7f.0.0.1', '2130706433', '[::1]', '::ffff:127.1', 'localhost', '', '1.2.3.4.5'])(
    'refuses %j, which the socket would not read as plain dotted decimal or IPv6',
    (text) => {
      expect(addressBlockReason(text, strict)).toBe('not an IP address');
    },
  );

  it('CALLS_ALLOW_PRIVATE_URLS lets loopback and private in, in every spelling', () => {
    const allowed = ['127.0.0.1', '10.1.2.3', '::1', '::7f00:1', '::127.0.0.1', '::ffff:7f00:1', '::ffff:0:7f00:1', '64:ff9b::a00:1', '64:ff9b:1::a00:1', '2002:7f00:1::', 'fe80::1', 'fc00::1'];
    expect(allowed.filter((ip) => addressBlockReason(ip, open) !== null)).toEqual([]);
  });

  it.each([
    ['169.254.169.254', 'a cloud metadata address'],
    ['100.100.100.200', 'a cloud metadata address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['::ffff:a9fe:a9fe', 'a cloud metadata address'],
    ['::169.254.169.254', compatible('169.254.169.254', 'a cloud metadata address')],
    ['::ffff:0:a9fe:a9fe', 'a rfc6145 address embedding 169.254.169.254, a cloud metadata address'],
    ['64:ff9b::169.254.169.254', 'a rfc6052 address embedding 169.254.169.254, a cloud metadata address'],
    ['2002:a9fe:a9fe::', 'a 6to4 address embedding 169.254.169.254, a cloud metadata address'],
    ['2001:0:4136:e378::5601:5601', 'a teredo address embedding 169.254.169.254, a cloud metadata address'],
  ])('refuses the metadata address %s even with CALLS_ALLOW_PRIVATE_URLS', (ip, reason) => {
    expect(addressBlockReason(ip, open)).toBe(reason);
  });

  it('CALLS_ALLOW_CIDRS lets the address in, mapped or not, but not its deprecated IPv4-compatible form', () => {
    const policy: AddressPolicy = { allowPrivate: false, allowCidrs: ['127.0.0.1/32'] };
    expect(addressBlockReason('127.0.0.1', policy)).toBeNull();
    expect(addressBlockReason('::ffff:127.0.0.1', policy)).toBeNull();
    expect(addressBlockReason('127.0.0.2', policy)).toBe('a loopback address');
    expect(addressBlockReason('::127.0.0.1', policy)).toBe('a ipv4Compatible address');
  });
});

const literal = 'a ipv4Compatible address embedding 127.0.0.1, a loopback address';

/** URL spellings: the WHATWG parser normalises each host, and every one ends at the same check. */
const URLS: readonly (readonly [string, string])[] = [
  ['http://[::127.0.0.1]:8080/a.wav', `::7f00:1 is ${literal}`],
  ['http://[0:0:0:0:0:0:127.0.0.1]/a.wav', `::7f00:1 is ${literal}`],
  ['http://[::7F00:1]/a.wav', `::7f00:1 is ${literal}`],
  ['http://[::ffff:127.0.0.1]/a.wav', '::ffff:7f00:1 is a loopback address'],
  ['http://[::FFFF:7F00:1]/a.wav', '::ffff:7f00:1 is a loopback address'],
  ['http://[0:0:0:0:0:ffff:7f00:1]/a.wav', '::ffff:7f00:1 is a loopback address'],
  ['http://[0000:0000:0000:0000:0000:ffff:127.0.0.1]/a.wav', '::ffff:7f00:1 is a loopback address'],
  ['http://[::ffff:0:127.0.0.1]/a.wav', '::ffff:0:7f00:1 is a rfc6145 address embedding 127.0.0.1, a loopback address'],
  ['http://[64:ff9b::10.0.0.1]/a.wav', '64:ff9b::a00:1 is a rfc6052 address embedding 10.0.0.1, a private address'],
  ['http://[2002:7f00:1::]/a.wav', '2002:7f00:1:: is a 6to4 address embedding 127.0.0.1, a loopback address'],
  ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/a.wav', '2001:0:4136:e378:8000:63bf:80ff:fffe is a teredo address embedding 127.0.0.1, a loopback address'],
  ['http://2130706433/a.wav', '127.0.0.1 is a loopback address'],
  ['http://0x7f.1/a.wav', '127.0.0.1 is a loopback address'],
  ['http://0177.0.0.1/a.wav', '127.0.0.1 is a loopback address'],
  ['http://127.1/a.wav', '127.0.0.1 is a loopback address'],
  ['http://0x7f000001/a.wav', '127.0.0.1 is a loopback address'],
  ['http://017700000001/a.wav', '127.0.0.1 is a loopback address'],
  ['http://127.0.0.1./a.wav', '127.0.0.1 is a loopback address'],
  ['https://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254 is a cloud metadata address'],
  ['http://0251.0376.0251.0376/', '169.254.169.254 is a cloud metadata address'],
  ['http://2852039166/', '169.254.169.254 is a cloud metadata address'],
];

describe('URL spellings', () => {
  it.each(URLS)('%s is refused at submit and as a redirect target', (url, message) => {
    const refused = expect.objectContaining({ code: 'url_blocked', message });
    expect(() => checkOutboundUrl(url, strict)).toThrow(refused);
    expect(() => redirectTarget(new URL('http://cdn.example/a.wav'), url, strict)).toThrow(refused);
  });
});

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    let cause: unknown = error;
    while (!(cause instanceof FetchError) && cause instanceof Error && cause.cause) cause = cause.cause;
    if (cause instanceof FetchError) return { code: cause.code, message: cause.message };
    throw error;
  }
  throw new Error('the request was not refused');
}

describe('at the socket: a DNS answer, or a literal host handed to the guarded request', () => {
  let confinement: LoopbackConfinement;
  beforeAll(() => {
    confinement = confineToLoopback();
  });
  afterEach(() => {
    expect(confinement.stopped.splice(0)).toEqual([]);
  });
  afterAll(() => confinement.release());

  it.each(REFUSED)('a name resolving to %s is refused at lookup as %s', async (address, reason) => {
    const resolve = async () => [{ address, family: address.includes(':') ? (6 as const) : (4 as const) }];
    expect(await refusal(fetchRecording('http://target.test:9/a.wav', { ...strict, resolve }))).toEqual({
      code: 'url_blocked',
      message: `target.test is resolving to ${reason} (${address})`,
    });
  });

  it.each(REFUSED)('the literal %s is refused by the guarded request before it connects', async (address, reason) => {
    const host = address.includes(':') ? `[${address}]` : address;
    const normalized = new URL(`http://${host}/`).hostname.replace(/^\[|\]$/g, '');
    expect(await refusal(guardedRequest(new URL(`http://${host}:9/a.wav`), { method: 'GET', headers: {} }, strict))).toEqual({
      code: 'url_blocked',
      message: `${normalized} is ${reason}`,
    });
  });
});
