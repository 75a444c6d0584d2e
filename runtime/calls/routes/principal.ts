import type { Response } from 'express';
import type { Principal } from '../auth.js';

/** The caller authenticated by the app's auth middleware; routes behind it always have one. */
export function principalOf(res: Response): Principal {
  return res.locals.principal as Principal;
}

export function sendJsonBody(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.status(status);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
