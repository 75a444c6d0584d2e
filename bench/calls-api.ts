/**
 * The call-analysis API end to end: submit latency and analysed recording-minutes per second
 * through HTTP, the pg-boss queue, the guarded fetch, decoding and analysis, with webhooks off.
 *
 *   node --import tsx bench/calls-api.ts [--calls 40] [--minutes 5] [--concurrency 2]
 *
 * With --concurrency 0 only the submissions are measured. Uses DATABASE_URL when set, else an embedded cluster in a temporary GANTRY_HOME. Recordings
 * (8 kHz stereo 16-bit WAV, a 20 s conversation cycle) are served from 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createCallsApp, startCallsService } from '../runtime/calls/app.js';
import { createApiKey } from '../runtime/calls/keys.js';
import { loadConfig } from '../runtime/config.js';
import { createLogger } from '../runtime/logger.js';
import { Platform } from '../runtime/platform/platform.js';
import { pcm16WavHeader } from './wav-header.js';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '40' }, minutes: { type: 'string', default: '5' }, concurrency: { type: 'string', default: '2' } } });
const calls = Number(values.calls);
const minutes = Number(values.minutes);
const RATE = 8000;

function conversationWav(seconds: number): Buffer {
  const frames = seconds * RATE;
  const out = Buffer.alloc(44 + frames * 4);
  pcm16WavHeader(frames, RATE, 2).copy(out);
  for (let i = 0; i < frames; i++) {
    const t = (i / RATE) % 20;
    const operator = t < 6 || (t >= 14 && t < 17) ? Math.round(12000 * Math.sin((2 * Math.PI * 440 * i) / RATE)) : 0;
    const customer = (t >= 5.5 && t < 12) || (t >= 17 && t < 19) ? Math.round(8000 * Math.sin((2 * Math.PI * 660 * i) / RATE)) : 0;
    out.writeInt16LE(operator, 44 + i * 4);
    out.writeInt16LE(customer, 46 + i * 4);
  }
  return out;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-calls-bench-'));
const schema = `pgboss_bench_${randomBytes(4).toString('hex')}`;
const config = loadConfig({
  ...process.env,
  GANTRY_HOME: home,
  CALLS_QUEUE_SCHEMA: schema,
  CALLS_ALLOW_PRIVATE_URLS: 'true',
  CALLS_CONCURRENCY: values.concurrency,
  CALLS_POLL_SECONDS: '0.5',
  CALLS_RATE_LIMIT_PER_MINUTE: '100000',
});
const platform = await Platform.open(config);
const service = await startCallsService(platform, { settings: config.calls, log: createLogger('silent') });
const wav = conversationWav(minutes * 60);
const recordings = createServer((_req, res) => res.end(wav));
const api = createServer(createCallsApp(service));
await new Promise<void>((resolve) => recordings.listen(0, '127.0.0.1', resolve));
await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
const recordingUrl = `http://127.0.0.1:${(recordings.address() as AddressInfo).port}/call.wav`;
const apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;

try {
  const { key } = await createApiKey(platform.pool, `bench_${randomBytes(4).toString('hex')}`);
  const latencies: number[] = [];
  const ids: string[] = [];
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    const response = await fetch(`${apiUrl}/v1/calls/analyze`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ audio_url: recordingUrl, language: 'en', operator_id: `op_${i % 7}` }),
    });
    latencies.push(performance.now() - t0);
    ids.push(((await response.json()) as { id: string }).id);
  }
  latencies.sort((a, b) => a - b);
  console.log(`${calls} calls of ${minutes} min (8 kHz stereo WAV, ${(wav.length / 1e6).toFixed(1)} MB each), CALLS_CONCURRENCY=${values.concurrency}`);
  console.log(`submit latency: p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms`);
  while (config.calls.concurrency > 0) {
    const { rows } = await platform.pool.query<{ done: number; failed: number }>(
      `SELECT count(*) FILTER (WHERE status IN ('completed', 'failed'))::int AS done, count(*) FILTER (WHERE status = 'failed')::int AS failed
         FROM calls WHERE id = ANY ($1::uuid[])`,
      [ids.map((id) => id.slice(5).replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-'))],
    );
    if (rows[0]!.done === calls) {
      if (rows[0]!.failed) console.log(`${rows[0]!.failed} calls failed`);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const seconds = (performance.now() - started) / 1000;
  if (config.calls.concurrency > 0) console.log(`all analysed in ${seconds.toFixed(1)} s: ${((calls * minutes) / seconds).toFixed(1)} recording-minutes per second, ${(calls / seconds).toFixed(2)} calls per second`);
} finally {
  api.close();
  recordings.close();
  await service.close();
  await platform.pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await platform.close();
  await fs.rm(home, { recursive: true, force: true });
}
