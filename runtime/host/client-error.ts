import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { ApiError } from '../rest/errors.js';
import { acceptedRequestId } from '../http/request-id.js';

/** The client's `X-Request-Id` from the bytes the parser refused, when it is there and acceptable; else a new one. */
function rawRequestId(rawPacket: Buffer | undefined): string {
  const sent = /\r\nx-request-id:[ \t]*([^\r\n]*?)[ \t]*\r\n/i.exec(rawPacket?.toString('latin1') ?? '')?.[1];
  return acceptedRequestId(sent) ?? randomUUID();
}

/** Statuses of the parser errors that are not a plain 400. */
const STATUS_OF: Readonly<Record<string, number>> = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/**
 * The host server's `clientError` listener. Node answers a request its HTTP parser refuses
 * (raw non-ASCII bytes in the request target, a broken request line or header) with a bare
 * 400 without a body; every malformed request gets the JSON error shape with a code instead, and
 * an `X-Request-Id` as every answer has.
 */
export function answerClientError(error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): void {
  // A response already under way on this socket cannot be followed by another (Node's own check).
  const started = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (error.code === 'ECONNRESET' || !socket.writable || started) {
    socket.destroy();
    return;
  }
  const status = STATUS_OF[error.code ?? ''] ?? 400;
  // A HEAD answer has no body, or the client reads it as the start of the next response.
  const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  const body = head ? '' : JSON.stringify(new ApiError(status, 'PGRST100', 'Malformed HTTP request', error.code ?? null).toJSON());
  socket.end([
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    `X-Request-Id: ${rawRequestId(error.rawPacket)}`,
    '',
    body,
  ].join('\r\n'));
}
