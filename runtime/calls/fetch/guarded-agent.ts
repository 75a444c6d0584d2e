import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { addressBlockReason, type AddressPolicy } from './address-policy.js';
import { FetchError } from './errors.js';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Hostname to addresses; injectable so tests never depend on real DNS. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

export interface GuardOptions extends AddressPolicy {
  readonly resolve?: Resolver;
  readonly connectTimeoutMs?: number;
  /** Time to the response headers. */
  readonly headersTimeoutMs?: number;
  /** Longest pause between two body reads. */
  readonly bodyTimeoutMs?: number;
}

export function blockedError(host: string, reason: string): FetchError {
  return new FetchError('url_blocked', `${host} is ${reason}`);
}

/**
 * A `net.connect` lookup that resolves with our resolver, refuses the connection when any address
 * is blocked, and hands net exactly the addresses it checked: the socket is pinned to them, so a
 * DNS answer that changes between check and connect (rebinding) cannot slip through.
 */
function guardedLookup(resolve: Resolver, policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const wanted = addresses.filter((a) => !options.family || a.family === options.family);
        if (wanted.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
          return;
        }
        for (const { address } of wanted) {
          const reason = addressBlockReason(address, policy);
          if (reason) {
            callback(blockedError(hostname, `resolving to ${reason} (${address})`), '', 0);
            return;
          }
        }
        if (options.all) callback(null, wanted.map((a) => ({ address: a.address, family: a.family })));
        else callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}

/**
 * An undici dispatcher that only connects to allowed addresses. Literal-IP hosts never reach a
 * lookup function, so the connector checks them itself before opening a socket. Use it for every
 * outbound request made on a tenant's behalf (recordings, webhook deliveries), and never let it
 * follow redirects on its own.
 */
export function createGuardedAgent(options: GuardOptions): Agent {
  const connect = buildConnector({
    timeout: options.connectTimeoutMs ?? 5_000,
    lookup: guardedLookup(options.resolve ?? systemResolver, options),
  });
  return new Agent({
    headersTimeout: options.headersTimeoutMs ?? 15_000,
    bodyTimeout: options.bodyTimeoutMs ?? 30_000,
    connect: (opts, callback) => {
      if (isIP(opts.hostname)) {
        const reason = addressBlockReason(opts.hostname, options);
        if (reason) {
          callback(blockedError(opts.hostname, reason), null);
          return;
        }
      }
      connect(opts, callback);
    },
  });
}
