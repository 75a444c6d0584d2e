import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The longest `X-Request-Id` kept from a client; a longer one is replaced. */
export const MAX_REQUEST_ID_LENGTH = 200;

/** Token characters that are safe in a header, a log line and a JSON string alike (no spaces, quotes or controls). */
const REQUEST_ID = /^[A-Za-z0-9._~:/+=@-]+$/;

/** A client's `X-Request-Id` when it is short and plain enough to pass on; null otherwise (then one is made). */
export function acceptedRequestId(value: string | readonly string[] | undefined): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_REQUEST_ID_LENGTH) return null;
  return REQUEST_ID.test(value) ? value : null;
}

/**
 * The request's id: the client's when accepted, else `make()`'s. Written back into the request's
 * headers, so everything that reads them — `request.headers` of the data API's transaction
 * included — sees the id the answer carries.
 */
export function requestIdOf(req: IncomingMessage, make: () => string = randomUUID): string {
  const sent = req.headers['x-request-id'];
  const accepted = acceptedRequestId(sent);
  if (accepted !== null) return accepted;
  const id = make();
  req.headers['x-request-id'] = id;
  return id;
}

/** The id `requestIdOf` gave the request earlier (it is in the headers since), or null before that. */
export function assignedRequestId(req: IncomingMessage): string | null {
  const id = req.headers['x-request-id'];
  return typeof id === 'string' ? id : null;
}
