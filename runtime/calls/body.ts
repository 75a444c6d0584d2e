import type { Request } from 'express';
import { CallsApiError } from './errors.js';

export const MAX_BODY_BYTES = 16 * 1024;

function mediaType(req: Request): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

export function isJson(req: Request): boolean {
  const type = mediaType(req);
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

export function isForm(req: Request): boolean {
  return mediaType(req) === 'application/x-www-form-urlencoded';
}

/** The raw body, refused with 413 past 16 KiB (counted, not trusted from Content-Length). */
export async function readBody(req: Request): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(): CallsApiError {
  return new CallsApiError(413, 'body_too_large', `the request body is larger than ${MAX_BODY_BYTES} bytes`, { headers: { Connection: 'close' } });
}

export function unsupportedMediaType(accepted: string): CallsApiError {
  return new CallsApiError(415, 'unsupported_media_type', `Content-Type must be ${accepted}`);
}

/** A JSON body: 415 for another content type, 400 `invalid_json` when it does not parse. */
export async function readJson(req: Request, { optional = false } = {}): Promise<unknown> {
  const length = req.headers['content-length'];
  const hasBody = (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
  if (optional && !hasBody) return undefined;
  if (!isJson(req)) throw unsupportedMediaType('application/json');
  return parseJson(await readBody(req));
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CallsApiError(400, 'invalid_json', 'the body is not valid JSON');
  }
}
