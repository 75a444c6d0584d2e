/**
 * Sends the grammar's requests to a running host and checks each answer: never a 5xx, and a
 * 4xx always carries a JSON error with a string `code` (HEAD answers have no body to check).
 */
import http from 'node:http';
import { Prng } from './prng.js';
import type { FuzzTarget } from './fuzz-schema.js';
import { generateRequest, type FuzzKeys, type FuzzRequest } from './query-grammar.js';

export interface FuzzAnswer {
  readonly status: number;
  readonly body: string;
}

export interface FuzzFailure {
  readonly seed: number;
  readonly index: number;
  readonly request: FuzzRequest;
  readonly answer: FuzzAnswer | null;
  readonly problem: string;
}

export interface FuzzOptions {
  /** `http://host:port/v1/<ref>/rest/v1`. */
  readonly baseUrl: string;
  readonly target: FuzzTarget;
  readonly keys: FuzzKeys;
  readonly seed: number;
  /** Cases `first .. first + cases - 1` of the seed's sequence. */
  readonly cases: number;
  readonly first?: number;
  readonly concurrency?: number;
}

export interface FuzzReport {
  readonly failures: readonly FuzzFailure[];
  /** How many answers had each status. */
  readonly statuses: ReadonlyMap<number, number>;
}

/** Sends the request byte for byte: no URL normalisation, so malformed escapes reach the server as written. */
export function send(baseUrl: string, request: FuzzRequest, agent: http.Agent): Promise<FuzzAnswer> {
  const url = new URL(baseUrl);
  const body = request.body === null ? null : Buffer.from(request.body, 'utf8');
  return new Promise((resolve, reject) => {
    const req = http.request({
      agent,
      host: url.hostname,
      port: url.port,
      method: request.method,
      path: `${url.pathname}${request.path}`,
      headers: { ...request.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/** What is wrong with an answer, or null. */
export function checkAnswer(request: FuzzRequest, answer: FuzzAnswer): string | null {
  if (answer.status >= 500) return `status ${answer.status}`;
  if (answer.status < 400 || request.method === 'HEAD') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    return `status ${answer.status} without a JSON body`;
  }
  const code = typeof parsed === 'object' && parsed !== null ? (parsed as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code !== '' ? null : `status ${answer.status} without a string "code"`;
}

/** A curl command that sends the same request. */
export function describeRequest(baseUrl: string, request: FuzzRequest): string {
  const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
  const headers = Object.entries(request.headers).map(([k, v]) => `-H ${quote(`${k}: ${v}`)}`);
  const body = request.body === null ? [] : [`--data-binary ${quote(request.body)}`];
  return ['curl', '--path-as-is', '-g', '-X', request.method, ...headers, ...body, quote(`${baseUrl}${request.path}`)].join(' ');
}

export function describeFailure(baseUrl: string, failure: FuzzFailure): string {
  const answer = failure.answer ? ` -> ${failure.answer.status} ${failure.answer.body.slice(0, 300)}` : '';
  return `seed ${failure.seed} case ${failure.index}: ${failure.problem}${answer}\n  ${describeRequest(baseUrl, failure.request)}`;
}

/** The request of case `index` of `seed`, as the fuzzer sends it. */
export function fuzzCase(seed: number, index: number, target: FuzzTarget, keys: FuzzKeys): FuzzRequest {
  return generateRequest(Prng.forCase(seed, index), target, keys);
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency ?? 4 });
  const failures: FuzzFailure[] = [];
  const statuses = new Map<number, number>();
  const first = options.first ?? 0;
  let next = first;
  const worker = async (): Promise<void> => {
    while (next < first + options.cases) {
      const index = next;
      next += 1;
      const request = fuzzCase(options.seed, index, options.target, options.keys);
      let answer: FuzzAnswer | null = null;
      let problem: string | null;
      try {
        answer = await send(options.baseUrl, request, agent);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        problem = checkAnswer(request, answer);
      } catch (error) {
        problem = `no answer: ${(error as Error).message}`;
      }
      if (problem !== null) failures.push({ seed: options.seed, index, request, answer, problem });
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  } finally {
    agent.destroy();
  }
  failures.sort((a, b) => a.index - b.index);
  return { failures, statuses };
}
