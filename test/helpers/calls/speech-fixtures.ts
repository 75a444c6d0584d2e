import { execFileSync } from 'node:child_process';

/**
 * Spoken fixtures, synthesized at test time by espeak-ng (fixed voice, rate and pitch) and
 * brought to 16 kHz by sox in repeatable mode (its dither is seeded). Tests that need a missing tool skip with `missingSpeechTools`.
 */
const TOOLS = [
  { bin: 'espeak-ng', apt: 'espeak-ng' },
  { bin: 'sox', apt: 'sox' },
  { bin: 'pocketsphinx_continuous', apt: 'pocketsphinx pocketsphinx-en-us' },
] as const;

/** A Debian tool a spoken fixture needs: its command and the packages that bring it. */
export interface FixtureTool {
  readonly bin: string;
  readonly apt: string;
}

function has(bin: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** null when every tool is there, else the skip message naming what `what` needs installed. */
export function missingTools(tools: readonly FixtureTool[], what: string, separator = ', '): string | null {
  const missing = tools.filter((tool) => !has(tool.bin));
  return missing.length ? `${what} need ${missing.map((t) => t.bin).join(separator)} (apt-get install -y ${missing.map((t) => t.apt).join(' ')}); skipped` : null;
}

export function missingSpeechTools(): string | null {
  return missingTools(TOOLS, 'speech fixtures');
}

export const FIXTURE_RATE = 16_000;

export interface Voice {
  readonly name: string;
  readonly wordsPerMinute: number;
  readonly pitch?: number;
}

/**
 * espeak-ng's Klatt voice: of the voices tried, the one PocketSphinx reads best (WER 0.3-0.45 on
 * single lines against 0.7-1.0 for the default and female variants). The two speakers differ in
 * pitch and rate.
 */
export const OPERATOR_VOICE: Voice = { name: 'en-us+klatt', wordsPerMinute: 150, pitch: 70 };
export const CUSTOMER_VOICE: Voice = { name: 'en-us+klatt', wordsPerMinute: 140, pitch: 30 };

export function speak(text: string, voice: Voice): Float32Array {
  const wav = execFileSync('espeak-ng', ['-v', voice.name, '-s', String(voice.wordsPerMinute), ...(voice.pitch === undefined ? [] : ['-p', String(voice.pitch)]), '--stdout', text]);
  const raw = execFileSync('sox', ['-R', '-t', 'wav', '-', '-t', 'raw', '-e', 'signed', '-b', '16', '-r', String(FIXTURE_RATE), '-c', '1', '-'], { input: wav });
  const samples = new Int16Array(raw.buffer, raw.byteOffset, raw.byteLength / 2);
  return Float32Array.from(samples, (s) => s / 32768);
}

export interface Line {
  readonly speaker: 0 | 1;
  readonly text: string;
}

/** The test dialogue: an operator and a customer, three lines each. */
export const DIALOGUE: readonly Line[] = [
  { speaker: 0, text: 'good morning my name is anna how can i help you today' },
  { speaker: 1, text: 'hello i am calling about my account please can you check my balance' },
  { speaker: 0, text: 'of course can you tell me your account number please' },
  { speaker: 1, text: 'yes it is four five six seven eight nine' },
  { speaker: 0, text: 'thank you your balance is one hundred dollars' },
  { speaker: 1, text: 'thank you very much have a nice day' },
];

export interface PlacedLine extends Line {
  readonly start: number;
  readonly end: number;
}

/**
 * Lays the lines out one after another with `gapS` of silence between them: on the speaker's
 * channel (stereo) or all in one channel (mono). Returns the channels and where each line is.
 */
export function dialogue(lines: readonly Line[], voices: readonly [Voice, Voice], options: { stereo: boolean; gapS: number }): { channels: Float32Array[]; placed: PlacedLine[] } {
  const spoken = lines.map((line) => speak(line.text, voices[line.speaker]));
  const gap = Math.round(options.gapS * FIXTURE_RATE);
  const total = spoken.reduce((sum, s) => sum + s.length + gap, gap);
  const channels = Array.from({ length: options.stereo ? 2 : 1 }, () => new Float32Array(total));
  const placed: PlacedLine[] = [];
  let at = gap;
  lines.forEach((line, i) => {
    const samples = spoken[i]!;
    channels[options.stereo ? line.speaker : 0]!.set(samples, at);
    placed.push({ ...line, start: at / FIXTURE_RATE, end: (at + samples.length) / FIXTURE_RATE });
    at += samples.length + gap;
  });
  return { channels, placed };
}

/** Word error rate: word-level edit distance over the reference length. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = reference.toLowerCase().split(/\s+/).filter(Boolean);
  const hyp = hypothesis.toLowerCase().split(/\s+/).filter(Boolean);
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const row = [i];
    for (let j = 1; j <= hyp.length; j++) row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1)));
    previous = row;
  }
  return previous[hyp.length]! / ref.length;
}
