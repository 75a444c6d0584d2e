import { AudioError, type AudioErrorCode } from '../audio/errors.js';
import type { CallError } from '../call-resource.js';
import { FetchError, type FetchErrorCode } from '../../outbound/errors.js';

/** The HTTP status each failure corresponds to, as in this API's error shape: a too-large recording is a 413. */
const STATUS: Readonly<Record<FetchErrorCode | AudioErrorCode | 'internal_error', number>> = {
  invalid_url: 400,
  url_blocked: 400,
  too_many_redirects: 502,
  download_failed: 502,
  download_timeout: 504,
  file_too_large: 413,
  unsupported_audio_format: 415,
  corrupt_audio: 422,
  empty_audio: 422,
  audio_too_long: 413,
  internal_error: 500,
};

export interface ClassifiedFailure {
  readonly error: CallError;
  /** Worth another attempt: the network or the server may behave next time; the bytes will not. */
  readonly transient: boolean;
}

export function classifyFailure(failure: unknown): ClassifiedFailure {
  if (failure instanceof FetchError) {
    const upstream = failure.status;
    const transient =
      failure.code === 'download_timeout' || (failure.code === 'download_failed' && (upstream === undefined || upstream >= 500 || upstream === 429 || upstream === 408));
    return { error: { code: failure.code, message: failure.message, status: STATUS[failure.code] }, transient };
  }
  if (failure instanceof AudioError) {
    return { error: { code: failure.code, message: failure.message, status: STATUS[failure.code] }, transient: false };
  }
  return { error: { code: 'internal_error', message: 'the analysis failed unexpectedly', status: STATUS.internal_error }, transient: true };
}
