import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { SpeechEngineError, type EngineWord, type SpeechChunk, type SpeechEngine } from './speech-engine.js';
import { encodePcm16Wav } from './wav-encoding.js';

const COMMAND = 'pocketsphinx_continuous';
/** Debian's pocketsphinx-en-us puts the acoustic model, dictionary and language model here. */
const MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
/**
 * A wider search than the defaults: on six synthesized lines in a voice PocketSphinx reads badly
 * it took the word error rate from 0.86 to 0.76; it costs about 0.47 CPU-seconds per second of
 * each channel (bench/calls-transcripts.ts).
 */
const SEARCH_FLAGS = ['-beam', '1e-80', '-wbeam', '1e-60', '-pbeam', '1e-80'];
const FILLERS = new Set(['<s>', '</s>', '<sil>']);

export const POCKETSPHINX_QUALITY =
  'PocketSphinx 0.8 with the cmusphinx en-us model, a fallback: measured word error rate 0.23-0.27 on a clean synthesized 16 kHz stereo dialogue, 0.5-1.0 with other synthetic voices; expect worse on real and telephone-band calls';

function usable(file: string, mode: number): boolean {
  try {
    accessSync(file, mode);
    return true;
  } catch {
    return false;
  }
}

/** Whether the command is on `path` (a PATH value) and the English model is installed: the engine works without a setting. */
export function pocketsphinxInstalled(path: string | undefined): boolean {
  const onPath = (path ?? '').split(delimiter).some((dir) => dir !== '' && usable(join(dir, COMMAND), constants.X_OK));
  return onPath && usable(MODEL_DIR, constants.R_OK);
}

/** The `-time yes` lines (`word start end posterior`), fillers and noise markers left out, pronunciation variants `(2)` stripped. */
export function parsePocketsphinxTimes(output: string): EngineWord[] {
  const words: EngineWord[] = [];
  for (const line of output.split('\n')) {
    const match = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)$/.exec(line.trim());
    if (!match) continue;
    const token = match[1]!;
    if (FILLERS.has(token) || token.startsWith('[') || token.startsWith('++')) continue;
    words.push({ text: token.replace(/\(\d+\)$/, ''), start: Number(match[2]), end: Number(match[3]), confidence: Math.min(1, Number(match[4])) });
  }
  return words;
}

function run(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(COMMAND, args, { maxBuffer: 16 * 1024 * 1024, timeout: 10 * 60_000 }, (error, stdout) => {
      if (!error) return resolve(stdout);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        reject(new SpeechEngineError('engine_unavailable', `${COMMAND} is not installed (Debian: apt-get install pocketsphinx pocketsphinx-en-us)`));
      } else {
        reject(new SpeechEngineError('engine_failed', `${COMMAND} failed: ${error.message.split('\n')[0]}`));
      }
    });
  });
}

/** Debian's PocketSphinx, English only: the built-in fallback. Each chunk goes through a temporary WAV file. */
export class PocketsphinxEngine implements SpeechEngine {
  readonly name = 'pocketsphinx';
  readonly model = 'cmusphinx-en-us (Debian pocketsphinx-en-us)';
  readonly languages = ['en'] as const;
  readonly quality = POCKETSPHINX_QUALITY;
  #checked = false;

  async transcribe(chunk: SpeechChunk): Promise<EngineWord[]> {
    if (!this.#checked) {
      await access(MODEL_DIR).catch(() => {
        throw new SpeechEngineError('engine_unavailable', `the PocketSphinx English model is missing at ${MODEL_DIR} (Debian: apt-get install pocketsphinx-en-us)`);
      });
      this.#checked = true;
    }
    const dir = await mkdtemp(join(tmpdir(), 'gantry-sphinx-'));
    try {
      const file = join(dir, 'chunk.wav');
      await writeFile(file, encodePcm16Wav(chunk.samples, chunk.sampleRate));
      const output = await run(['-infile', file, '-time', 'yes', '-samprate', String(chunk.sampleRate), ...SEARCH_FLAGS, '-logfn', '/dev/null']);
      return parsePocketsphinxTimes(output);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async close(): Promise<void> {}
}
