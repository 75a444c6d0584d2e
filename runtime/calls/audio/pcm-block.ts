/** A run of decoded samples: one Float32Array per channel, all the same length, values in [-1, 1]. */
export interface PcmBlock {
  readonly sampleRate: number;
  readonly channelData: readonly Float32Array[];
}

export type AudioContainer = 'wav' | 'mp3' | 'flac' | 'ogg';

/** What the decoder learnt about the recording, known once the first block is out. */
export interface AudioDescription {
  readonly container: AudioContainer;
  /** e.g. `pcm_s16le`, `pcm_mulaw`, `mp3`, `flac`, `vorbis`, `opus`. */
  readonly codec: string;
}
