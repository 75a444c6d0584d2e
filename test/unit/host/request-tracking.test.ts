import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino, type Level, type LevelWithSilent } from 'pino';
import { describe, expect, it } from 'vitest';
import type { InFlight } from '../../../runtime/host/app.js';
import { trackRequest } from '../../../runtime/host/request-tracking.js';

/** Serves one request with trackRequest at `level`; the log lines, and the in-flight count during and after. */
async function serveOne(level: LevelWithSilent): Promise<{ lines: Record<string, unknown>[]; during: number; after: number }> {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => { lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>); done(); } });
  const log = pino({ level }, sink);
  const inFlight: InFlight = { count: 0 };
  let during = -1;
  const closed = new Promise<void>((resolve) => {
    const server = http.createServer((req, res) => {
      trackRequest(req, res, log, inFlight);
      during = inFlight.count;
      res.on('close', () => server.close(() => resolve()));
      res.statusCode = 418;
      res.end('tea');
    });
    server.listen(0, '127.0.0.1', () => {
      http.get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x/rest/v1/todos?apikey=secret`, { agent: false }, (res) => res.resume());
    });
  });
  await closed;
  return { lines, during, after: inFlight.count };
}

describe('trackRequest', () => {
  it('counts the request in flight until it closes and logs one line without the query string at info', async () => {
    const { lines, during, after } = await serveOne('info' satisfies Level);
    expect([during, after]).toEqual([1, 0]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'request', method: 'GET', path: '/v1/x/rest/v1/todos', status: 418 });
    expect(typeof lines[0]!.ms).toBe('number');
  });

  it('counts the request but logs nothing below info', async () => {
    expect(await serveOne('warn')).toEqual({ lines: [], during: 1, after: 0 });
  });
});
