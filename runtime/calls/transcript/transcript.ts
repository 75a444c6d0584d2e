/**
 * The transcript of one call, as the call resource returns it. Times in seconds from the start of
 * the recording. A speaker id is `operator`/`customer` for stereo calls (left/right channel, as the
 * talk metrics), `speaker_1`/`speaker_2` for a mono call split by voice, `speaker_1` alone when the
 * voices could not be told apart.
 */
export interface Word {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /** 0..1, the engine's own score. */
  readonly confidence: number;
  readonly speaker: string;
}

export interface Utterance {
  readonly speaker: string;
  readonly start: number;
  readonly end: number;
  readonly confidence: number;
  readonly text: string;
  readonly words: readonly Word[];
}

export interface TranscriptSpeaker {
  readonly id: string;
  readonly label: string;
  /** The recording's channel this speaker was taken from (stereo calls). */
  readonly channel?: number;
  /** 0..1: how sure the mono split is that this is a distinct voice. */
  readonly confidence?: number;
}

/** How the speakers were told apart: by channel (stereo), or by pitch in a mono call with how sure the split is. */
export interface SpeakerSeparation {
  readonly method: 'channel' | 'pitch';
  /** 0..1; 1 for channels. A mono call below 0.5 keeps one speaker. */
  readonly confidence: number;
}

export interface CompletedTranscript {
  readonly status: 'completed';
  readonly engine: string;
  readonly model: string;
  readonly language: string;
  /** The engine's measured accuracy, where it was measured (the built-in PocketSphinx fallback). */
  readonly quality?: string;
  readonly separation: SpeakerSeparation;
  readonly speakers: readonly TranscriptSpeaker[];
  readonly utterances: readonly Utterance[];
}

/** No transcript: no engine configured, or none serving the call's language; the reason says which. */
export interface UnavailableTranscript {
  readonly status: 'unavailable';
  readonly reason: string;
  readonly engine?: string;
  readonly language: string;
}

export type Transcript = CompletedTranscript | UnavailableTranscript;
