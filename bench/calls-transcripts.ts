/**
 * Transcription speed and memory: a stereo espeak-ng dialogue (the test fixture's lines, looped)
 * of --minutes written to disk and analysed with a speech engine, streamed from the file.
 *
 *   node --expose-gc --import tsx bench/calls-transcripts.ts [--minutes 60] [--engine pocketsphinx|openai]
 *
 * pocketsphinx: Debian's PocketSphinx (apt-get install pocketsphinx pocketsphinx-en-us espeak-ng sox).
 * openai: a local server speaking /v1/audio/transcriptions that answers at once, so the figure is
 * this side's cost (decode, resample, chunk, upload) without a model's.
 * Prints the real-time factor (wall seconds per second of audio, and per channel-second), the CPU
 * time per channel-second counting the engine's processes (the figure that does not depend on
 * what else the machine runs), the peak RSS of this process and the peak RSS of the engine's
 * child processes, sampled every 250 ms, and the load average (the machine may be shared). Every
 * minute it prints how far the recording has been read, the CPU spent per channel-second of it
 * and the memory, so a long run on a busy machine shows its cost before it ends.
 */
import { createReadStream, createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeRecording } from '../runtime/calls/analysis/analyze.js';
import type { EngineSpec } from '../runtime/calls/transcript/speech-settings.js';
import { CUSTOMER_VOICE, DIALOGUE, dialogue, FIXTURE_RATE, OPERATOR_VOICE } from '../test/helpers/calls/speech-fixtures.js';
import { startTranscriptionServer, TWO_WORDS } from '../test/helpers/calls/transcription-server.js';
import { pcm16WavHeader } from './wav-header.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1]! : fallback;
};
const minutes = Number(option('minutes', '60'));
const engineName = option('engine', 'pocketsphinx');


async function writeCall(path: string): Promise<number> {
  const { channels } = dialogue(DIALOGUE, [OPERATOR_VOICE, CUSTOMER_VOICE], { stereo: true, gapS: 1 });
  const cycle = channels[0]!.length;
  const frames = Math.floor(minutes * 60 * FIXTURE_RATE);
  const header = pcm16WavHeader(frames, FIXTURE_RATE, 2);
  const out = createWriteStream(path);
  out.write(header);
  for (let start = 0; start < frames; start += FIXTURE_RATE) {
    const length = Math.min(FIXTURE_RATE, frames - start);
    const block = Buffer.alloc(length * 4);
    for (let i = 0; i < length; i++) {
      const n = (start + i) % cycle;
      block.writeInt16LE(Math.round(channels[0]![n]! * 32767), i * 4);
      block.writeInt16LE(Math.round(channels[1]![n]! * 32767), i * 4 + 2);
    }
    if (!out.write(block)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return cycle / FIXTURE_RATE;
}

/** CPU seconds of this process's children that have finished (the engine's processes), from /proc/self/stat. */
function childrenCpuSeconds(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  // cutime and cstime are fields 16 and 17 of stat(5), in clock ticks (100 per second on Linux).
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** RSS of this process's children (the engine's processes), in MB, read from /proc (a `ps` per sample would count in the CPU figure). */
function childrenRssMb(): number {
  let kb = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      if (Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) === process.pid) kb += Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return kb / 1024;
}

const dir = mkdtempSync(join(tmpdir(), 'calls-transcripts-bench-'));
const server = engineName === 'openai' ? await startTranscriptionServer() : null;
let uploads = 0;
if (server) {
  // The test server keeps every upload; the bench only counts them, so its memory is the pipeline's.
  server.answer = (upload) => {
    uploads++;
    server.uploads.length = 0;
    return TWO_WORDS(upload);
  };
}
try {
  const wav = join(dir, 'call.wav');
  const cycleS = await writeCall(wav);
  const engines: EngineSpec[] = server
    ? [{ kind: 'openai', baseUrl: server.baseUrl, model: 'local', apiKey: 'x', languages: ['en'], timeoutMs: 60_000, policy: { allowPrivate: true } }]
    : [{ kind: 'pocketsphinx' }];
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss / 2 ** 20;
  let peakRss = 0;
  let peakChildren = 0;
  const sample = (): void => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss / 2 ** 20);
    peakChildren = Math.max(peakChildren, childrenRssMb());
  };
  const timer = setInterval(sample, 250);
  const cpuBefore = process.cpuUsage();
  const childrenBefore = childrenCpuSeconds();
  const cpuSeconds = (): number => {
    const cpu = process.cpuUsage(cpuBefore);
    return (cpu.user + cpu.system) / 1e6 + childrenCpuSeconds() - childrenBefore;
  };
  const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
  const started = performance.now();
  const input = createReadStream(wav, { highWaterMark: 64 * 1024 });
  let bytesRead = 0;
  input.on('data', (chunk) => {
    bytesRead += chunk.length;
  });
  const progress = setInterval(() => {
    // Decoding waits while the engine works, so what has been read is at most a chunk ahead of it
    // (and the engine process still running is not counted yet): the CPU figure is a little low.
    const audioRead = bytesRead / (FIXTURE_RATE * 4);
    const wall = (performance.now() - started) / 1000;
    console.log(
      `  ${wall.toFixed(0)} s: ${audioRead.toFixed(0)} s of audio read, CPU ${(cpuSeconds() / audioRead / 2).toFixed(3)} s per channel-second, ` +
        `RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB (peak ${peakRss.toFixed(0)}), engine processes peak ${peakChildren.toFixed(0)} MB, load ${load()}`,
    );
  }, 60_000);
  const result = await analyzeRecording(input, { speech: { language: 'en-US', engines } });
  clearInterval(progress);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(timer);
  sample();
  const cpuS = cpuSeconds();
  const audioS = minutes * 60;
  const transcript = result.transcript!;
  const words = transcript.status === 'completed' ? transcript.utterances.reduce((sum, u) => sum + u.words.length, 0) : 0;
  console.log(
    `${engineName}: ${minutes} min stereo 16 kHz (dialogue of ${cycleS.toFixed(1)} s looped), ${seconds.toFixed(1)} s wall, ` +
      `real-time factor ${(seconds / audioS).toFixed(3)} (${(seconds / audioS / 2).toFixed(3)} per channel-second), ` +
      `CPU ${cpuS.toFixed(1)} s with the engine's processes = ${(cpuS / audioS / 2).toFixed(3)} CPU-s per channel-second, ${server ? `${uploads} uploads, ` : ''}` +
      `peak RSS ${peakRss.toFixed(0)} MB (${rssBefore.toFixed(0)} MB before), engine processes ${peakChildren.toFixed(0)} MB, ` +
      `transcript ${transcript.status}, ${words} words, load average at the end ${load()}`,
  );
} finally {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
}
