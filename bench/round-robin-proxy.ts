import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A round-robin HTTP proxy in front of several hosts, as a load balancer stands in front of
 * `gantry serve` processes: keep-alive connections to each host, a readiness check (`GET /health`)
 * every `healthIntervalMs` that takes a host out of the rotation after `fall` failed checks in a row
 * (an answer other than 200, or none within `healthTimeoutMs`) and puts it back on its first passing one. It never retries: a request whose host fails is answered 502 (or, when
 * the host's answer had begun, cut), so every failure reaches the client and is counted here by cause.
 */
export interface ProxyOutcomes {
  /** Per cause: `502 <error code>` (the host failed before answering), `cut <error code>` (mid-answer), `503 no host`. */
  readonly failures: Map<string, number>;
  /** When each host left and rejoined the rotation (ms since the epoch). */
  readonly rotation: { readonly host: string; readonly at: number; readonly up: boolean }[];
}

export interface RoundRobinProxy {
  readonly url: string;
  readonly outcomes: ProxyOutcomes;
  /** Whether the host is in the rotation now. */
  isUp(host: string): boolean;
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1): each connection's own, never forwarded. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer'];

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const copy: http.OutgoingHttpHeaders = { ...headers };
  for (const name of HOP_BY_HOP) delete copy[name];
  return copy;
}

export async function startRoundRobinProxy(hosts: readonly string[], options: { healthIntervalMs: number; healthTimeoutMs: number; fall: number }): Promise<RoundRobinProxy> {
  // A pooled connection left idle 30 s is dropped (the agent destroys a free socket on its timeout), below the
  // hosts' 65 s keepAliveTimeout, as a balancer's upstream idle timeout is set: otherwise a request can go out
  // on a connection the host is closing at that moment and meet a reset.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, timeout: 30_000 });
  const up = new Map(hosts.map((host) => [host, false]));
  const outcomes: ProxyOutcomes = { failures: new Map(), rotation: [] };
  const count = (cause: string): void => void outcomes.failures.set(cause, (outcomes.failures.get(cause) ?? 0) + 1);
  let next = 0;

  const pick = (): string | null => {
    for (let tried = 0; tried < hosts.length; tried += 1) {
      const host = hosts[next++ % hosts.length]!;
      if (up.get(host)) return host;
    }
    return null;
  };

  const server = http.createServer((req, res) => {
    const host = pick();
    if (host === null) {
      count('503 no host');
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"proxy":"no host in the rotation"}');
      return;
    }
    const target = new URL(req.url ?? '/', host);
    const out = http.request({ host: target.hostname, port: target.port, method: req.method, path: target.pathname + target.search, headers: endToEnd(req.headers), agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(res);
      answer.on('error', (error: NodeJS.ErrnoException) => {
        count(`cut ${error.code ?? error.message}`);
        res.destroy();
      });
    });
    out.on('error', (error: NodeJS.ErrnoException) => {
      if (res.headersSent) return;
      count(`502 ${error.code ?? error.message}`);
      res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ proxy: error.code ?? error.message }));
    });
    req.pipe(out);
  });
  server.keepAliveTimeout = 120_000;

  const failedInARow = new Map(hosts.map((host) => [host, 0]));
  const check = async (host: string): Promise<void> => {
    const passed = await fetch(new URL('/health', host), { signal: AbortSignal.timeout(options.healthTimeoutMs) }).then(
      (answer) => answer.status === 200,
      () => false,
    );
    const failed = passed ? 0 : failedInARow.get(host)! + 1;
    failedInARow.set(host, failed);
    const inRotation = passed || (up.get(host)! && failed < options.fall);
    if (inRotation !== up.get(host)) outcomes.rotation.push({ host, at: Date.now(), up: inRotation });
    up.set(host, inRotation);
  };
  let checking = true;
  const loops = hosts.map(async (host) => {
    while (checking) {
      await check(host);
      await new Promise((resolve) => setTimeout(resolve, options.healthIntervalMs));
    }
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    outcomes,
    isUp: (host) => up.get(host) === true,
    close: async () => {
      checking = false;
      await Promise.all(loops);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
