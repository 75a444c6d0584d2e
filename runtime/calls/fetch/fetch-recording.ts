import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { FetchError } from '../../outbound/errors.js';
import { guardedRequest, OutboundTimeoutError, readBody, type GuardOptions } from '../../outbound/guarded-request.js';
import { checkOutboundUrl, redirectTarget } from '../../outbound/outbound-url.js';

export interface FetchRecordingOptions extends GuardOptions {
  /** Cap on the body size; larger bodies fail with `file_too_large`. Default 500 MB. */
  readonly maxBytes?: number;
  /** Budget for the whole download, headers and body. Default 300 s. */
  readonly timeoutMs?: number;
  /** Default 5. */
  readonly maxRedirects?: number;
  /** Cancels the download (e.g. on shutdown); surfaces as `download_failed` "the download was cancelled". */
  readonly signal?: AbortSignal;
}

export interface FetchedRecording {
  /** The URL that finally answered, after redirects. */
  readonly url: string;
  readonly contentType: string | null;
  readonly contentLength: number | null;
  /** The body as bytes; errors mid-stream are `FetchError`s (`file_too_large`, `download_timeout`, `download_failed`). */
  readonly body: Readable;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const REQUEST_HEADERS = {
  accept: 'audio/*, video/mp4, video/webm, application/ogg, application/octet-stream;q=0.9, */*;q=0.1',
  'accept-encoding': 'identity',
  'user-agent': 'gantry-calls/1',
};

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : undefined;
}

interface Signals {
  readonly deadline: AbortSignal;
  readonly cancel: AbortSignal | undefined;
}

/** Maps whatever node:http, net or an abort threw to a FetchError; never includes response bytes. */
function asFetchError(error: unknown, { deadline, cancel }: Signals): FetchError {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    if (e instanceof FetchError) return e;
  }
  if (cancel?.aborted) return new FetchError('download_failed', 'the download was cancelled');
  if (deadline.aborted || error instanceof OutboundTimeoutError) return new FetchError('download_timeout', 'the download timed out');
  const detail = errorCode(error) ?? (error instanceof Error ? error.name : 'error');
  return new FetchError('download_failed', `the download failed (${detail})`);
}

function declaredLength(headers: IncomingHttpHeaders): number | null {
  const value = headers['content-length'];
  const length = typeof value === 'string' ? Number(value) : NaN;
  return Number.isSafeInteger(length) && length >= 0 ? length : null;
}

async function* capped(body: AsyncIterable<Buffer>, maxBytes: number, signals: Signals): AsyncGenerator<Uint8Array> {
  let received = 0;
  try {
    for await (const chunk of body) {
      received += chunk.length;
      if (received > maxBytes) throw new FetchError('file_too_large', `the recording is larger than ${maxBytes} bytes`);
      yield chunk;
    }
  } catch (error) {
    throw asFetchError(error, signals);
  }
}

/**
 * GETs a recording through the SSRF guard. Redirects are followed by hand (at most
 * `maxRedirects`), each target checked again like the first URL, and an https -> http downgrade is
 * refused. Anything but a final 200 is `download_failed` with the status. The body is streamed on a
 * connection of its own: the caller must consume or destroy it; the connection closes when it ends.
 */
export async function fetchRecording(rawUrl: string, options: FetchRecordingOptions): Promise<FetchedRecording> {
  const maxBytes = options.maxBytes ?? 500 * 1024 * 1024;
  const maxRedirects = options.maxRedirects ?? 5;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 300_000);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const signals: Signals = { deadline: timeout, cancel: options.signal };
  let url = checkOutboundUrl(rawUrl, options);
  try {
    for (let hop = 0; ; hop++) {
      const response = await guardedRequest(url, { method: 'GET', headers: REQUEST_HEADERS, signal }, options);
      const location = response.headers.location;
      if (REDIRECTS.has(response.statusCode) && typeof location === 'string') {
        response.body.destroy();
        if (hop >= maxRedirects) throw new FetchError('too_many_redirects', `more than ${maxRedirects} redirects`);
        url = redirectTarget(url, location, options);
        continue;
      }
      if (response.statusCode !== 200) {
        response.body.destroy();
        throw new FetchError('download_failed', `the server answered ${response.statusCode}`, response.statusCode);
      }
      const contentLength = declaredLength(response.headers);
      if (contentLength !== null && contentLength > maxBytes) {
        response.body.destroy();
        throw new FetchError('file_too_large', `the recording is larger than ${maxBytes} bytes`);
      }
      const contentType = response.headers['content-type'];
      return {
        url: url.href,
        contentType: typeof contentType === 'string' ? contentType : null,
        contentLength,
        body: Readable.from(capped(readBody(response.body, options), maxBytes, signals), { objectMode: false }),
      };
    }
  } catch (error) {
    throw asFetchError(error, signals);
  }
}
