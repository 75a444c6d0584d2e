/** Why a recording could not be turned into PCM. Codes are stable: the API stores them on a failed call. */
export type AudioErrorCode =
  /** The bytes are not one of the containers/codecs we decode (AAC, AIFF, HTML error pages, ...). */
  | 'unsupported_audio_format'
  /** The container was recognised but its structure or payload is broken or truncated. */
  | 'corrupt_audio'
  /** A well-formed file without a single sample. */
  | 'empty_audio'
  /** Longer than the caller's `maxDurationSeconds`; decoding stops at the limit. */
  | 'audio_too_long';

export class AudioError extends Error {
  override readonly name = 'AudioError';
  constructor(
    readonly code: AudioErrorCode,
    message: string,
  ) {
    super(message);
  }
}
