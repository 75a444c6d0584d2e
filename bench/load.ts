import { createRequire } from 'node:module';

/** What one autocannon run measured (2xx latencies only count as served requests). */
export interface LoadResult {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

export interface LoadOptions {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly connections: number;
  readonly duration: number;
  /** Seconds of load before the measured run (prepared statements, JIT). */
  readonly warmup?: number;
  /** Given: each request's path and body are this function's answer for the URL's (e.g. a different key each time). */
  readonly vary?: (request: { readonly path: string; readonly body?: string }) => { readonly path: string; readonly body?: string };
}

export interface AutocannonResult {
  readonly requests: { readonly average: number; readonly total: number };
  readonly latency: { readonly p50: number; readonly p99: number };
  readonly non2xx: number;
  readonly errors: number;
}

export type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

// autocannon ships no types; its call signature is the small part used here.
export const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { vary } = options;
  const base = {
    url: options.url, method: options.method, headers: options.headers, body: options.body, connections: options.connections,
    ...(vary ? { requests: [{ setupRequest: (request: { path: string; body?: string }) => ({ ...request, ...vary(request) }) }] } : {}),
  };
  await autocannon({ ...base, duration: options.warmup ?? 2 });
  const result = await autocannon({ ...base, duration: options.duration });
  return { rps: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}
