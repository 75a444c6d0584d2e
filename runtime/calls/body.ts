import type { Request } from 'express';
import { BodyTooLargeError, readBody as readBodyBytes } from '../http/body.js';
import { JsonTextError, parseJsonText } from '../http/json.js';
import { hasBody, isJsonMediaType, mediaTypeOf } from '../http/media-type.js';
import { CallsApiError } from './errors.js';

export const MAX_BODY_BYTES = 16 * 1024;

export function isJson(req: Request): boolean {
  return isJsonMediaType(req.headers['content-type']);
}

export function isForm(req: Request): boolean {
  return mediaTypeOf(req.headers['content-type']) === 'application/x-www-form-urlencoded';
}

/** The raw body, refused with 413 past 16 KiB: before reading when Content-Length says so, else as soon as it passes. */
export async function readBody(req: Request): Promise<string> {
  const res = req.res;
  if (!res) throw new Error('the request is not served by express');
  try {
    return (await readBodyBytes(req, res, MAX_BODY_BYTES)).toString('utf8');
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new CallsApiError(413, 'body_too_large', error.message);
    throw error;
  }
}

export function unsupportedMediaType(accepted: string): CallsApiError {
  return new CallsApiError(415, 'unsupported_media_type', `Content-Type must be ${accepted}`);
}

/** A JSON body: 415 for another content type, 400 `invalid_json` when it does not parse. */
export async function readJson(req: Request, { optional = false } = {}): Promise<unknown> {
  if (optional && (!hasBody(req.headers) || req.headers['content-length'] === '0')) return undefined;
  if (!isJson(req)) throw unsupportedMediaType('application/json');
  return parseJson(await readBody(req));
}

/** 400 `invalid_json` for a body that does not parse or nests deeper than MAX_JSON_DEPTH. */
export function parseJson(text: string): unknown {
  try {
    return parseJsonText(text);
  } catch (error) {
    if (error instanceof JsonTextError && error.problem === 'depth') throw new CallsApiError(400, 'invalid_json', `the body is not valid JSON: ${error.message}`);
    throw new CallsApiError(400, 'invalid_json', 'the body is not valid JSON');
  }
}
