import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendContinueIfAwaited } from './expect-continue.js';
import { closeAfterResponse } from './lingering-close.js';

/** A body over its endpoint's limit; each API answers it 413 in its own error shape. */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  constructor(readonly limitBytes: number) {
    super(`the request body is larger than ${limitBytes} bytes`);
  }
}

function declaredLength(req: IncomingMessage): number | null {
  const header = req.headers['content-length'];
  return header === undefined ? null : Number(header);
}

function refuse(req: IncomingMessage, res: ServerResponse, maxBytes: number): BodyTooLargeError {
  closeAfterResponse(req, res);
  return new BodyTooLargeError(maxBytes);
}

/**
 * The whole body, at most `maxBytes`. A larger declared `Content-Length` is refused before
 * a byte is read (and before `100 Continue`); a chunked body is refused the moment it passes
 * the limit. Either way the connection closes after the caller's 413 (closeAfterResponse),
 * so the client reads the answer instead of a reset.
 */
export function readBody(req: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<Buffer> {
  const declared = declaredLength(req);
  if (declared !== null && declared > maxBytes) return Promise.reject(refuse(req, res, maxBytes));
  if (req.readableEnded) return Promise.reject(new Error('the request body was already read'));
  sendContinueIfAwaited(req);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      stop();
      reject(refuse(req, res, maxBytes));
    };
    const onEnd = (): void => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error): void => {
      stop();
      reject(error);
    };
    const onClose = (): void => {
      stop();
      reject(new Error('the request closed before its body was read'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
