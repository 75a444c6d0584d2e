/** Why a URL was not fetched. Codes are stable: the API stores them on a failed call. */
export type FetchErrorCode =
  /** Not an absolute http(s) URL, or it carries credentials. */
  | 'invalid_url'
  /** The host is, or resolves to, an address we refuse to connect to (loopback, private, metadata, ...). */
  | 'url_blocked'
  | 'too_many_redirects'
  /** DNS failure, connection failure, or an HTTP status other than 200. */
  | 'download_failed'
  | 'download_timeout'
  /** Larger than the size cap (by Content-Length or by bytes actually received). */
  | 'file_too_large';

export class FetchError extends Error {
  override readonly name = 'FetchError';
  constructor(
    readonly code: FetchErrorCode,
    message: string,
    /** The HTTP status when the server answered with one we do not accept. */
    readonly status?: number,
  ) {
    super(message);
  }
}

export function blockedError(host: string, reason: string): FetchError {
  return new FetchError('url_blocked', `${host} is ${reason}`);
}
