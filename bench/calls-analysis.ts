/**
 * Call-analysis throughput and memory on a synthesized 1-hour stereo recording streamed from disk.
 *
 *   node --import tsx bench/calls-analysis.ts [--minutes 60] [--rate 8000] [--codecs] [--vad silero|energy]
 *
 * --vad picks the VAD (default silero, as the API). The recording is tones: the energy VAD reads
 * its talk times exactly, Silero hears no speech in it but does all its work on every window.
 *
 * --codecs also encodes the WAV with flac/lame/oggenc/opusenc (when installed) and measures those
 * decoders. Prints recording-minutes analysed per second of wall time and the peak RSS / heap seen
 * while analysing (sampled every 20 ms, plus at every chunk), next to the RSS before the first run.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { analyzeRecording } from '../runtime/calls/analysis/analyze.js';
import type { VadKind } from '../runtime/calls/analysis/options.js';
import { pcm16WavHeader } from './wav-header.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const minutes = option('minutes', 60);
const rate = option('rate', 8000);
const withCodecs = args.includes('--codecs');
const vad: VadKind = args.includes('--vad') && args[args.indexOf('--vad') + 1] === 'energy' ? 'energy' : 'silero';

/** A 20 s conversation cycle: operator [0,6) [14,17), customer [5.5,12) [17,19). */
const CYCLE_S = 20;
const OPERATOR: [number, number][] = [[0, 6], [14, 17]];
const CUSTOMER: [number, number][] = [[5.5, 12], [17, 19]];
const speaking = (spans: [number, number][], t: number): boolean => spans.some(([a, b]) => t >= a && t < b);

async function writeWav(path: string): Promise<void> {
  const frames = minutes * 60 * rate;
  const header = pcm16WavHeader(frames, rate, 2);
  const out = createWriteStream(path);
  out.write(header);
  for (let second = 0; second < minutes * 60; second++) {
    const block = Buffer.alloc(rate * 4);
    for (let i = 0; i < rate; i++) {
      const n = second * rate + i;
      const t = (n / rate) % CYCLE_S;
      const left = speaking(OPERATOR, t) ? 0.5 * Math.sin((2 * Math.PI * 440 * n) / rate) : 0;
      const right = speaking(CUSTOMER, t) ? 0.3 * Math.sin((2 * Math.PI * 660 * n) / rate) : 0;
      block.writeInt16LE(Math.round(left * 32767), i * 4);
      block.writeInt16LE(Math.round(right * 32767), i * 4 + 2);
    }
    if (!out.write(block)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

interface Measurement {
  readonly label: string;
  readonly bytes: number;
  readonly seconds: number;
  readonly peakRssMb: number;
  readonly peakHeapMb: number;
  readonly operator: number | null;
  readonly customer: number | null;
  readonly overtalk: number | null;
  readonly silence: number;
}

async function measure(label: string, path: string): Promise<Measurement> {
  globalThis.gc?.();
  let peakRss = 0;
  let peakHeap = 0;
  const sample = (): void => {
    const usage = process.memoryUsage();
    peakRss = Math.max(peakRss, usage.rss);
    peakHeap = Math.max(peakHeap, usage.heapUsed + usage.arrayBuffers);
  };
  const timer = setInterval(sample, 20);
  const input = createReadStream(path, { highWaterMark: 64 * 1024 });
  input.on('data', sample);
  const started = performance.now();
  const result = await analyzeRecording(input, { analyzer: { vad } });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(timer);
  sample();
  return {
    label,
    bytes: statSync(path).size,
    seconds,
    peakRssMb: peakRss / 2 ** 20,
    peakHeapMb: peakHeap / 2 ** 20,
    operator: result.talk.operator_s,
    customer: result.talk.customer_s,
    overtalk: result.overtalk?.total_s ?? null,
    silence: result.silence.total_s,
  };
}

const dir = mkdtempSync(join(tmpdir(), 'calls-bench-'));
try {
  const wav = join(dir, 'call.wav');
  await writeWav(wav);
  const cycles = (minutes * 60) / CYCLE_S;
  console.log(`recording: ${minutes} min stereo PCM16 ${rate} Hz, ${vad} VAD; expected operator ${9 * cycles} s, customer ${8.5 * cycles} s, overtalk ${0.5 * cycles} s, silence ${3 * cycles} s`);
  const targets: [string, string][] = [['wav pcm16', wav]];
  if (withCodecs) {
    const encoders: [string, string, (i: string, o: string) => string[]][] = [
      ['flac', 'flac', (i, o) => ['--silent', '--force', '-o', o, i]],
      ['mp3 64k', 'lame', (i, o) => ['--quiet', '-b', '64', i, o]],
      ['vorbis', 'oggenc', (i, o) => ['--quiet', '-o', o, i]],
      ['opus', 'opusenc', (i, o) => ['--quiet', i, o]],
    ];
    for (const [label, bin, argv] of encoders) {
      const output = join(dir, `call.${bin}`);
      try {
        execFileSync(bin, argv(wav, output), { stdio: 'ignore' });
        targets.push([label, output]);
      } catch {
        console.log(`${label}: ${bin} not installed, skipped`);
      }
    }
  }
  globalThis.gc?.();
  console.log(`RSS before analysing: ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`);
  for (const [label, path] of targets) {
    const m = await measure(label, path);
    console.log(
      `${m.label.padEnd(10)} ${(m.bytes / 1e6).toFixed(1).padStart(6)} MB  ${m.seconds.toFixed(2).padStart(6)} s  ` +
        `${((minutes / m.seconds)).toFixed(1).padStart(7)} recording-min/s  peak RSS ${m.peakRssMb.toFixed(0)} MB  ` +
        `peak heap+buffers ${m.peakHeapMb.toFixed(0)} MB  -> operator ${m.operator} s, customer ${m.customer} s, overtalk ${m.overtalk} s, silence ${m.silence} s`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
