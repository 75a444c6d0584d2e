import { execFileSync } from 'node:child_process';
import { missingTools } from './speech-fixtures.js';

/**
 * A spoken two-party call synthesized by espeak-ng (fixed voices and rate) and shaped by sox,
 * with the ground truth of where each turn was placed. Used to measure voice activity detectors.
 */
const TOOLS = [
  { bin: 'espeak-ng', apt: 'espeak-ng' },
  { bin: 'sox', apt: 'sox' },
] as const;

/** null when espeak-ng and sox are installed, else the skip message naming what to install. */
export function missingDialogueTools(): string | null {
  return missingTools(TOOLS, 'spoken fixtures', ' and ');
}

export interface DialogueTurn {
  /** 0 = operator (left channel), 1 = customer (right). */
  readonly speaker: 0 | 1;
  readonly text: string;
  /** Seconds from the end of the previous turn to this one's start; negative: it starts before that turn ends. */
  readonly after: number;
}

export interface PlacedTurn {
  readonly speaker: 0 | 1;
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/** Ten turns with pauses of 0.35–1.5 s and one interruption (the customer cuts in 0.6 s early). */
export const SUPPORT_DIALOGUE: readonly DialogueTurn[] = [
  { speaker: 0, text: 'Thank you for calling Acme support, this is Dana speaking.', after: 0.8 },
  { speaker: 1, text: 'Hi, I ordered a kettle two weeks ago and it never arrived.', after: 0.6 },
  { speaker: 0, text: 'I am sorry to hear that. Can I have your order number please?', after: 0.9 },
  { speaker: 1, text: 'Yes, it is four seven one two.', after: 1.5 },
  { speaker: 0, text: 'Thank you. One moment while I look that up.', after: 0.4 },
  { speaker: 0, text: 'I can see the parcel was returned to our warehouse.', after: 1.2 },
  { speaker: 1, text: 'Returned? Why would it be returned?', after: -0.6 },
  { speaker: 0, text: 'The address on the label was missing a house number.', after: 0.5 },
  { speaker: 1, text: 'Right. Can you send it again?', after: 0.35 },
  { speaker: 0, text: 'Of course, it will arrive on Thursday.', after: 0.7 },
];

export type DialogueLayout = 'stereo' | 'mono';
export type DialogueBand = 'wideband' | 'telephone';

export interface DialogueOptions {
  readonly layout: DialogueLayout;
  /** wideband: 16 kHz; telephone: 8 kHz, 300–3400 Hz. */
  readonly band: DialogueBand;
  /** White noise added to every channel (deterministic), in dBFS RMS; null: none. */
  readonly noiseDbfs: number | null;
}

export interface SpokenDialogue {
  readonly sampleRate: number;
  readonly channels: Float32Array[];
  readonly turns: readonly PlacedTurn[];
  readonly duration: number;
}

const VOICES = [
  { name: 'en-us+f3', wordsPerMinute: 150 },
  { name: 'en-us', wordsPerMinute: 160 },
] as const;

/** One turn spoken, its leading and trailing silence cut, at the fixture's rate and band. */
function speak(text: string, speaker: 0 | 1, band: DialogueBand): Float32Array {
  const voice = VOICES[speaker];
  const wav = execFileSync('espeak-ng', ['-v', voice.name, '-s', String(voice.wordsPerMinute), '--stdout', text]);
  const shape = band === 'telephone' ? ['sinc', '300-3400', 'rate', '8000'] : ['rate', '16000'];
  const raw = execFileSync('sox', ['-t', 'wav', '-', '-t', 'raw', '-e', 'float', '-b', '32', '-c', '1', '-', 'silence', '1', '0.01', '0.3%', 'reverse', 'silence', '1', '0.01', '0.3%', 'reverse', ...shape], { input: wav });
  return new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
}

/** A xorshift generator: the same noise on every run. */
function noise(length: number, rms: number, seed: number): Float32Array {
  let state = seed >>> 0 || 1;
  const out = new Float32Array(length);
  const amplitude = rms * Math.sqrt(3);
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = ((state >>> 0) / 0xffffffff - 0.5) * 2 * amplitude;
  }
  return out;
}

export function synthesizeDialogue(turns: readonly DialogueTurn[], options: DialogueOptions): SpokenDialogue {
  const sampleRate = options.band === 'telephone' ? 8000 : 16_000;
  const spoken = turns.map((turn) => speak(turn.text, turn.speaker, options.band));
  const placed: PlacedTurn[] = [];
  let at = 0;
  turns.forEach((turn, i) => {
    const start = Math.max(0, at + turn.after);
    const end = start + spoken[i]!.length / sampleRate;
    placed.push({ speaker: turn.speaker, text: turn.text, start, end });
    at = Math.max(at, end);
  });
  const duration = at + 1;
  const length = Math.round(duration * sampleRate);
  const stereo = Array.from({ length: 2 }, () => new Float32Array(length));
  placed.forEach((turn, i) => {
    const samples = spoken[i]!;
    const offset = Math.round(turn.start * sampleRate);
    const channel = stereo[turn.speaker]!;
    for (let s = 0; s < samples.length && offset + s < length; s++) channel[offset + s]! += samples[s]!;
  });
  let channels = stereo;
  if (options.layout === 'mono') {
    const mixed = new Float32Array(length);
    for (let s = 0; s < length; s++) mixed[s] = 0.5 * (stereo[0]![s]! + stereo[1]![s]!);
    channels = [mixed];
  }
  if (options.noiseDbfs !== null) {
    const rms = 10 ** (options.noiseDbfs / 20);
    channels.forEach((channel, c) => {
      const hiss = noise(length, rms, 0x9e3779b9 + c);
      for (let s = 0; s < length; s++) channel[s]! += hiss[s]!;
    });
  }
  return { sampleRate, channels, turns: placed, duration };
}
