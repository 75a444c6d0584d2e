/**
 * Runs inside an analysis worker thread (see analysis-pool.ts): receives a recording's bytes
 * chunk by chunk, decodes and analyses them, and answers with the result or the error. One
 * analysis at a time; every consumed chunk is acknowledged so the sender never runs far ahead.
 */
import { parentPort } from 'node:worker_threads';
import { analyzeRecording } from '../analysis/analyze.js';
import { AudioError } from '../audio/errors.js';
import type { ToWorker } from './analysis-protocol.js';

const port = parentPort!;

/** The bytes of one analysis, as they arrive. */
class Incoming {
  readonly #chunks: Uint8Array[] = [];
  #ended = false;
  #wake: (() => void) | null = null;

  constructor(readonly id: number) {}

  push(chunk: Uint8Array | null): void {
    if (chunk) this.#chunks.push(chunk);
    else this.#ended = true;
    this.#wake?.();
    this.#wake = null;
  }

  async *bytes(): AsyncGenerator<Uint8Array> {
    for (;;) {
      const chunk = this.#chunks.shift();
      if (chunk) {
        yield chunk;
        port.postMessage({ type: 'ack', id: this.id });
      } else if (this.#ended) {
        return;
      } else {
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    }
  }
}

let current: Incoming | null = null;

port.on('message', (message: ToWorker) => {
  if (message.type === 'start') {
    const incoming = new Incoming(message.id);
    current = incoming;
    analyzeRecording(incoming.bytes(), message.options).then(
      (result) => port.postMessage({ type: 'done', id: incoming.id, result }),
      (error: unknown) =>
        port.postMessage(
          error instanceof AudioError
            ? { type: 'error', id: incoming.id, audioCode: error.code, message: error.message }
            : { type: 'error', id: incoming.id, message: error instanceof Error ? error.message : String(error) },
        ),
    );
  } else if (current?.id === message.id) {
    current.push(message.type === 'chunk' ? message.bytes : null);
  }
});
