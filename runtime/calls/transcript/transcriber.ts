import type { PcmBlock } from '../audio/pcm-block.js';
import type { CallAnalysis } from '../analysis/result.js';
import { medianPitch } from './pitch.js';
import { splitByPitch } from './pitch-speakers.js';
import { SpeechChunker, type ChunkerOptions } from './speech-chunker.js';
import { SpeechEngineError, type SpeechChunk, type SpeechEngine } from './speech-engine.js';
import type { CompletedTranscript, Transcript, TranscriptSpeaker, Word } from './transcript.js';
import { groupUtterances, placeWord } from './utterances.js';

/** A word the VAD puts further than this from its channel's talk is the engine hearing leakage or noise. */
const TALK_MARGIN_S = 0.5;

interface HeardWord {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  readonly confidence: number;
  readonly channel: number;
  readonly pitchHz: number | null;
}

function reasonOf(error: unknown): string {
  if (error instanceof SpeechEngineError) return error.message;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && error instanceof Error ? `${code}: ${error.message}` : 'the speech engine failed';
}

function label(id: string): string {
  return id.charAt(0).toUpperCase() + id.slice(1).replace(/_/g, ' ');
}

/**
 * Transcribes a recording while it is decoded: blocks go through the chunker, each finished
 * chunk to the engine before decoding goes on (so memory stays one chunk per channel). An engine
 * failure stops the transcription, not the analysis: the transcript is then unavailable with the
 * reason.
 */
export class Transcriber {
  readonly #engine: SpeechEngine;
  readonly #language: string;
  readonly #chunker: SpeechChunker;
  readonly #words: HeardWord[] = [];
  #channels = 0;
  #failure: string | null = null;

  constructor(engine: SpeechEngine, language: string, chunking?: ChunkerOptions) {
    this.#engine = engine;
    this.#language = language;
    this.#chunker = new SpeechChunker(chunking);
  }

  async push(block: PcmBlock): Promise<void> {
    this.#channels = block.channelData.length;
    if (this.#failure) return;
    for (const chunk of this.#chunker.push(block)) await this.#run(chunk);
  }

  async #run(chunk: SpeechChunk): Promise<void> {
    if (this.#failure) return;
    try {
      const words = await this.#engine.transcribe(chunk, this.#language);
      const mono = this.#channels === 1;
      for (const word of words) {
        const at = (seconds: number): number => Math.round(seconds * chunk.sampleRate);
        this.#words.push({
          text: word.text,
          start: chunk.offset + word.start,
          end: chunk.offset + word.end,
          confidence: word.confidence,
          channel: chunk.channel,
          pitchHz: mono ? medianPitch(chunk.samples, chunk.sampleRate, at(word.start), at(word.end)) : null,
        });
      }
    } catch (error) {
      this.#failure = reasonOf(error);
    }
  }

  /** Sends what is left, then builds the transcript; `analysis` gives the channel roles and talk segments. */
  async finish(analysis: CallAnalysis): Promise<Transcript> {
    for (const chunk of this.#chunker.finish()) await this.#run(chunk);
    const { name: engine, model, quality } = this.#engine;
    if (this.#failure) return { status: 'unavailable', reason: this.#failure, engine, language: this.#language };
    const heard = analysis.segments_truncated ? this.#words : this.#words.filter((word) => insideTalk(word, analysis.segments[word.channel] ?? []));
    const base = { status: 'completed' as const, engine, model, language: this.#language, ...(quality ? { quality } : {}) };
    if (analysis.channel_roles.length >= 2) {
      const speakers: TranscriptSpeaker[] = analysis.channel_roles.map((role, channel) => ({ id: role, label: label(role), channel }));
      const words = heard.map((w) => placeWord(w.text, w.start, w.end, w.confidence, analysis.channel_roles[w.channel]!));
      return { ...base, separation: { method: 'channel', confidence: 1 }, speakers, utterances: groupUtterances(words) };
    }
    return { ...base, ...this.#monoSpeakers(heard) };
  }

  #monoSpeakers(heard: readonly HeardWord[]): Pick<CompletedTranscript, 'separation' | 'speakers' | 'utterances'> {
    const ordered = [...heard].sort((a, b) => a.start - b.start);
    const split = splitByPitch(ordered);
    const ids = ['speaker_1', 'speaker_2'];
    const words: Word[] = ordered.map((w, i) => placeWord(w.text, w.start, w.end, w.confidence, ids[split.speakerOf[i]!]!));
    const speakers = ids.slice(0, split.speakers).map((id) => ({ id, label: label(id), confidence: split.confidence }));
    return { separation: { method: 'pitch', confidence: split.confidence }, speakers, utterances: groupUtterances(words) };
  }
}

function insideTalk(word: HeardWord, segments: readonly (readonly [number, number])[]): boolean {
  const middle = (word.start + word.end) / 2;
  return segments.some(([start, end]) => middle >= start - TALK_MARGIN_S && middle <= end + TALK_MARGIN_S);
}
