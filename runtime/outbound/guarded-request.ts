import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { addressBlockReason, type AddressPolicy } from './address-policy.js';
import { blockedError } from './errors.js';
import { bareHost } from './outbound-url.js';
import { requestIdHeader } from '../http/request-scope.js';
import { contextWithSpan, endWith, injectTraceHeaders, SpanKind, startSpan } from '../tracing.js';

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
  /** Time from the connection to the response headers. */
  readonly headersTimeoutMs?: number;
  /** Longest wait for the next piece of the body while the reader is asking for one. */
  readonly bodyTimeoutMs?: number;
}

/** A phase of an outbound request took too long; `code` is what `net` uses for time-outs. */
export class OutboundTimeoutError extends Error {
  override readonly name = 'OutboundTimeoutError';
  readonly code = 'ETIMEDOUT';
  constructor(readonly phase: 'connect' | 'headers' | 'body') {
    super(`${phase} timed out`);
  }
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

export interface GuardedRequestInit {
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** Aborts the request and its body, whatever phase it is in. */
  readonly signal?: AbortSignal;
}

export interface GuardedResponse {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  /** Read it with `readBody` (which applies the body time-out) or destroy it. */
  readonly body: IncomingMessage;
}

/**
 * One HTTP request on a fresh connection that only reaches allowed addresses: a literal-IP host is
 * checked here, a hostname at lookup. It never follows redirects. Built on node:http rather than
 * undici: undici's HTTP/1 parser asserts (and takes the process down) when a body held back by
 * backpressure meets the server's FIN (nodejs/undici#5360, fixed only in undici 8, which needs
 * Node 22); node:http holds a slow reader back by pausing the socket itself, and a FIN waits in it.
 */
export function guardedRequest(url: URL, init: GuardedRequestInit, options: GuardOptions): Promise<GuardedResponse> {
  const host = bareHost(url);
  if (isIP(host)) {
    const reason = addressBlockReason(host, options);
    if (reason) return Promise.reject(blockedError(host, reason));
  }
  // A client span to the response's headers (the path and query can hold secrets: only the server is named).
  const span = startSpan(init.method, {
    'http.request.method': init.method,
    'server.address': host,
    'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
  }, SpanKind.CLIENT);
  // The request id and the trace (`traceparent`, this span as the parent) of the request that caused this call.
  const headers = { ...requestIdHeader(), ...init.headers };
  if (span !== null) injectTraceHeaders(headers, contextWithSpan(span));
  return endWith(span, new Promise<GuardedResponse>((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request({
      protocol: url.protocol,
      hostname: host,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: init.method,
      headers,
      // A connection of its own: nothing pooled outlives the request or is shared between tenants.
      agent: false,
      lookup: guardedLookup(options.resolve ?? systemResolver, options),
      ...(init.signal ? { signal: init.signal } : {}),
    });
    let timer = setTimeout(() => request.destroy(new OutboundTimeoutError('connect')), options.connectTimeoutMs ?? 5_000);
    const connected = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => request.destroy(new OutboundTimeoutError('headers')), options.headersTimeoutMs ?? 15_000);
    };
    request.once('socket', (socket: Socket) => {
      if (socket.connecting) socket.once('connect', connected);
      else connected();
    });
    request.once('response', (response: IncomingMessage) => {
      clearTimeout(timer);
      // Errors after the headers reach whoever reads the body; unread, they must not go unheard.
      response.on('error', () => undefined);
      resolve({ statusCode: response.statusCode ?? 0, headers: response.headers, body: response });
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(init.body);
  }));
}

/**
 * The body's chunks, each waited for at most `bodyTimeoutMs`: the clock runs only while the
 * reader asks for more, so a reader that holds the download back never times it out. The body
 * is destroyed (its connection closed) when the reader stops, early or not.
 */
export async function* readBody(body: IncomingMessage, options: Pick<GuardOptions, 'bodyTimeoutMs'>): AsyncGenerator<Buffer> {
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const idleMs = options.bodyTimeoutMs ?? 30_000;
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new OutboundTimeoutError('body')), idleMs);
      });
      const next = await Promise.race([chunks.next(), idle]).finally(() => clearTimeout(timer));
      if (next.done) return;
      yield next.value;
    }
  } finally {
    body.destroy();
  }
}
