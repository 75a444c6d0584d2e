import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { AnalyzeOptions } from '../analysis/analyze.js';
import type { CallAnalysis } from '../analysis/result.js';
import { AudioError } from '../audio/errors.js';
import type { FromWorker, ToWorker } from './analysis-protocol.js';

/** Chunks in flight to a worker before the sender waits for an acknowledgement. */
const WINDOW = 4;

/**
 * The worker runs TypeScript like the rest of the runtime: it registers tsx's loader, then
 * imports the worker module.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
import(workerData.tsx).then(({ register }) => { register(); return import(workerData.entry); });
`;

/** tsx's ESM API entry (its CommonJS twin registers a loader path that does not exist). */
function tsxApiUrl(): string {
  const require = createRequire(import.meta.url);
  const manifest = require('tsx/package.json') as { exports: Record<string, { import: { default: string } }> };
  const root = path.dirname(require.resolve('tsx/package.json'));
  return pathToFileURL(path.join(root, manifest.exports['./esm/api']!.import.default)).href;
}

class PooledWorker {
  readonly #worker: Worker;
  #listener: ((message: FromWorker) => void) | null = null;
  #failure: ((error: Error) => void) | null = null;
  dead = false;

  constructor(data: { tsx: string; entry: string }) {
    this.#worker = new Worker(BOOTSTRAP, { eval: true, workerData: data });
    this.#worker.on('message', (message: FromWorker) => this.#listener?.(message));
    const fail = (error: Error): void => {
      this.dead = true;
      this.#failure?.(error);
    };
    this.#worker.on('error', fail);
    this.#worker.on('exit', (code) => fail(new Error(`analysis worker exited (${code})`)));
  }

  /** Streams `source` to the worker and resolves with its answer. Throws what the source or the worker threw. */
  async analyze(id: number, source: AsyncIterable<Uint8Array>, options: AnalyzeOptions): Promise<CallAnalysis> {
    let credit = WINDOW;
    let creditWaiter: (() => void) | null = null;
    let settled = false;
    const outcome = new Promise<CallAnalysis>((resolve, reject) => {
      const finish = (): void => {
        settled = true;
        this.#listener = null;
        this.#failure = null;
        creditWaiter?.();
      };
      this.#listener = (message) => {
        if (message.id !== id) return;
        if (message.type === 'ack') {
          credit++;
          creditWaiter?.();
          creditWaiter = null;
        } else if (message.type === 'done') {
          finish();
          resolve(message.result);
        } else {
          finish();
          reject(message.audioCode ? new AudioError(message.audioCode, message.message) : new Error(message.message));
        }
      };
      this.#failure = (error) => {
        finish();
        reject(error);
      };
    });
    outcome.catch(() => undefined);
    this.#post({ type: 'start', id, options });
    try {
      for await (const chunk of source) {
        while (credit === 0 && !settled) await new Promise<void>((resolve) => (creditWaiter = resolve));
        if (settled) break;
        credit--;
        // A copy: the chunk may be a view of a pooled buffer that must not be detached.
        const bytes = new Uint8Array(chunk);
        this.#post({ type: 'chunk', id, bytes }, [bytes.buffer]);
      }
    } catch (error) {
      // The worker is mid-analysis on a stream that will never end: replace it.
      if (!settled) await this.terminate();
      throw error;
    }
    if (!settled) this.#post({ type: 'end', id });
    return outcome;
  }

  #post(message: ToWorker, transfer: ArrayBuffer[] = []): void {
    this.#worker.postMessage(message, transfer);
  }

  async terminate(): Promise<void> {
    this.dead = true;
    await this.#worker.terminate();
  }
}

/**
 * Decoding and analysing are CPU work; they run in worker threads so the API and the project
 * host sharing this process stay responsive while recordings are analysed. The recording is
 * still fetched on the main thread, through the SSRF guard, and streamed to the worker.
 */
export class AnalysisPool {
  readonly #idle: PooledWorker[] = [];
  readonly #busy = new Set<PooledWorker>();
  readonly #data = {
    tsx: tsxApiUrl(),
    entry: new URL('./analysis-worker.ts', import.meta.url).href,
  };
  #next = 0;

  async analyze(source: AsyncIterable<Uint8Array>, options: AnalyzeOptions): Promise<CallAnalysis> {
    let worker = this.#idle.pop();
    while (worker?.dead) worker = this.#idle.pop();
    worker ??= new PooledWorker(this.#data);
    this.#busy.add(worker);
    try {
      return await worker.analyze(++this.#next, source, options);
    } finally {
      this.#busy.delete(worker);
      if (!worker.dead) this.#idle.push(worker);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.#idle.splice(0), ...this.#busy].map((worker) => worker.terminate()));
  }
}
