import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * bcrypt (cost 10) off the main thread. bcryptjs' own async API only slices the
 * work between event-loop turns, so twenty concurrent sign-ins still take
 * seconds of main-thread CPU; a small worker pool keeps other requests fast.
 */

export const BCRYPT_COST = 10;
/** bcrypt reads only 72 bytes; longer passwords are refused instead of silently truncated. */
export const MAX_PASSWORD_BYTES = 72;
export const MIN_PASSWORD_LENGTH = 6;

type Job =
  | { readonly op: 'hash'; readonly password: string; readonly cost: number }
  | { readonly op: 'compare'; readonly password: string; readonly hash: string };

interface Pending {
  readonly job: Job;
  readonly resolve: (value: string | boolean) => void;
  readonly reject: (error: Error) => void;
}

interface PoolWorker {
  readonly worker: Worker;
  current: Pending | null;
}

// A CommonJS eval worker resolves bcryptjs by absolute path, so it runs the same
// under node, tsx and vitest without a TypeScript loader in the thread.
const bcryptPath = createRequire(import.meta.url).resolve('bcryptjs');
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const bcrypt = require(${JSON.stringify(bcryptPath)});
parentPort.on('message', (job) => {
  try {
    const value = job.op === 'hash' ? bcrypt.hashSync(job.password, job.cost) : bcrypt.compareSync(job.password, job.hash);
    parentPort.postMessage({ ok: true, value });
  } catch (error) {
    parentPort.postMessage({ ok: false, message: String(error && error.message || error) });
  }
});
`;

/** Threads of the process-wide pool: bcrypt is CPU-bound, so more than the cores only queue (capped at 4). */
export const PASSWORD_WORKERS = Math.max(1, Math.min(4, availableParallelism()));

export class PasswordPool {
  private readonly workers: PoolWorker[] = [];
  private readonly queue: Pending[] = [];
  private closed = false;

  constructor(private readonly size: number = PASSWORD_WORKERS) {}

  hash(password: string, cost: number = BCRYPT_COST): Promise<string> {
    return this.run({ op: 'hash', password, cost }) as Promise<string>;
  }

  compare(password: string, hash: string): Promise<boolean> {
    return this.run({ op: 'compare', password, hash }) as Promise<boolean>;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
    this.workers.length = 0;
  }

  private run(job: Job): Promise<string | boolean> {
    if (this.closed) return Promise.reject(new Error('password pool is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let idle = this.workers.find((w) => w.current === null);
      if (idle === undefined && this.workers.length < this.size) idle = this.spawn();
      if (idle === undefined) return;
      const next = this.queue.shift() as Pending;
      idle.current = next;
      idle.worker.ref();
      idle.worker.postMessage(next.job);
    }
  }

  private spawn(): PoolWorker {
    const entry: PoolWorker = { worker: new Worker(WORKER_SOURCE, { eval: true }), current: null };
    // Referenced only while busy: idle workers must not keep a finished process alive.
    entry.worker.unref();
    entry.worker.on('message', (reply: { ok: boolean; value?: string | boolean; message?: string }) => {
      const done = entry.current;
      entry.current = null;
      entry.worker.unref();
      if (done !== null) {
        if (reply.ok) done.resolve(reply.value as string | boolean);
        else done.reject(new Error(reply.message));
      }
      this.dispatch();
    });
    entry.worker.on('error', (error) => {
      const failed = entry.current;
      entry.current = null;
      this.workers.splice(this.workers.indexOf(entry), 1);
      failed?.reject(error);
      this.dispatch();
    });
    this.workers.push(entry);
    return entry;
  }
}

let shared: PasswordPool | null = null;

/** The process-wide pool; every project shares it so the thread count stays bounded. */
export function sharedPasswordPool(): PasswordPool {
  shared ??= new PasswordPool();
  return shared;
}

/**
 * A valid bcrypt hash of a random string, compared against when the e-mail is
 * unknown so that "no such user" costs the same time as "wrong password".
 */
export const DUMMY_PASSWORD_HASH = '$2b$10$c07EPsouHUx.Kcd2ChdxB.kDaEZe3kIf47x/ShxeUPg75AQxtanmu';

export type PasswordProblem = 'too_short' | 'too_long';

export function passwordProblem(password: string): PasswordProblem | null {
  if ([...password].length < MIN_PASSWORD_LENGTH) return 'too_short';
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) return 'too_long';
  return null;
}
