import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { BodyTooLargeError, readBody } from '../../http/body.js';
import { JsonTextError, parseJsonText } from '../../http/json.js';
import { hasBody, isJsonMediaType } from '../../http/media-type.js';
import { authErrors } from './errors.js';

/** Largest auth request body: credentials and user metadata fit many times over. */
export const MAX_AUTH_BODY_BYTES = 1024 * 1024;

function parse(text: string): unknown {
  // As body-parser's strict mode did: an empty body is {}, scalars are not a body.
  if (text.trim() === '') return {};
  if (!/^\s*[[{]/.test(text)) throw authErrors.badJson();
  try {
    return parseJsonText(text);
  } catch (error) {
    throw error instanceof JsonTextError && error.problem === 'depth' ? authErrors.badJson(error.message) : authErrors.badJson();
  }
}

/**
 * `req.body` from a JSON body (other media types are left unread, as GoTrue ignores them):
 * bounded in size and nesting; failures are auth errors for the router's error handler.
 */
export function jsonBody(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req.headers) || !isJsonMediaType(req.headers['content-type'])) {
      next();
      return;
    }
    readBody(req, res, MAX_AUTH_BODY_BYTES)
      .then((body) => parse(body.toString('utf8')))
      .then(
        (value) => {
          req.body = value;
          next();
        },
        (error: unknown) => next(error instanceof BodyTooLargeError ? authErrors.bodyTooLarge() : error),
      );
  };
}
