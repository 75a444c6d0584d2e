import { lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { type LookupFunction, type NetConnectOpts, type Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import { parseIpLiteral } from '../../runtime/outbound/ip-literal.js';

/**
 * Confines this process's outbound TCP to loopback while a hardening test runs: the SSRF table
 * feeds the guard addresses that route off the machine (IPv4-compatible, NAT64, 6to4, Teredo), and a
 * regression in the guard must fail the test, never send a packet. fetch opens client sockets
 * through `net.connect`, node:http and node:https through their agents' `createConnection`; the
 * guard wraps all three, refuses a literal host or a lookup answer that is not loopback, and records
 * it in `stopped`.
 */
export interface LoopbackConfinement {
  /** `host` of every connection refused, in order. */
  readonly stopped: string[];
  release(): void;
}

const LEAK = 'ERR_TEST_NOT_LOOPBACK';

function isLoopback(address: string): boolean {
  const parsed = parseIpLiteral(address);
  if (!parsed) return false;
  const ip = parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress() ? parsed.toIPv4Address() : parsed;
  return ip.range() === 'loopback';
}

function leak(host: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`test refused a connection off loopback: ${host}`), { code: LEAK });
}

export function confineToLoopback(): LoopbackConfinement {
  const stopped: string[] = [];
  const guardedLookup = (lookup: LookupFunction): LookupFunction => (hostname, options, callback) => {
    lookup(hostname, options, (error, address, family) => {
      if (error) return callback(error, address as string, family);
      const addresses = typeof address === 'string' ? [address] : address.map((a) => a.address);
      const outside = addresses.find((a) => !isLoopback(a));
      if (outside === undefined) return callback(null, address as string, family);
      stopped.push(outside);
      callback(leak(outside), '', 0);
    });
  };
  // A method (an agent's createConnection uses `this`) or net.connect itself, refusing what is not loopback.
  const confine = <F extends (...a: never[]) => unknown>(original: F): F =>
    function confined(this: unknown, ...args: unknown[]): Socket {
      const call = (...a: unknown[]): Socket => (original as unknown as (...b: unknown[]) => Socket).apply(this, a);
      const opts = args[0] as (NetConnectOpts & { host?: string; path?: string | null; lookup?: LookupFunction }) | number | string;
      // Clients may pass `path: undefined` (or null) among their options: only a string path is a Unix socket.
      if (typeof opts !== 'object' || typeof opts.path === 'string') return call(...args);
      const host = opts.host ?? 'localhost';
      if (net.isIP(host) && !isLoopback(host)) {
        stopped.push(host);
        const socket = new net.Socket();
        process.nextTick(() => socket.destroy(leak(host)));
        return socket;
      }
      return call({ ...opts, lookup: guardedLookup(opts.lookup ?? (dnsLookup as LookupFunction)) }, ...args.slice(1));
    } as unknown as F;
  // node:http and node:https connect through their agents' createConnection, which holds its own reference to net's.
  const originals = { net: net.connect, http: http.Agent.prototype.createConnection, https: https.Agent.prototype.createConnection };
  net.connect = confine(originals.net);
  http.Agent.prototype.createConnection = confine(originals.http);
  https.Agent.prototype.createConnection = confine(originals.https);
  return {
    stopped,
    release() {
      net.connect = originals.net;
      http.Agent.prototype.createConnection = originals.http;
      https.Agent.prototype.createConnection = originals.https;
    },
  };
}
