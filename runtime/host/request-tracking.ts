import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { InFlight } from './app.js';

/**
 * Counts a request in flight until its response closes (shutdown waits for them) and
 * logs one line for it: method, path without the query string (it can hold an
 * apikey), status and duration. Below `info` nothing of the line is built.
 */
export function trackRequest(req: IncomingMessage, res: ServerResponse, log: Logger, inFlight: InFlight): void {
  inFlight.count++;
  if (!log.isLevelEnabled('info')) {
    // A response closes once: `on` spares `once`'s wrapper.
    res.on('close', () => inFlight.count--);
    return;
  }
  const started = process.hrtime.bigint();
  res.on('close', () => {
    inFlight.count--;
    log.info({
      method: req.method,
      path: (req.url ?? '').split('?')[0],
      status: res.statusCode,
      ms: Number(process.hrtime.bigint() - started) / 1e6,
    }, 'request');
  });
}
