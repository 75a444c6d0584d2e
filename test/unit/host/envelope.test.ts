import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino, type Level, type LevelWithSilent } from 'pino';
import { describe, expect, it } from 'vitest';
import { currentRequest } from '../../../runtime/http/request-scope.js';
import { RequestEnvelope, type InFlight } from '../../../runtime/host/envelope.js';

type Entry = 'enter' | 'enterFast';

interface Served {
  readonly lines: Record<string, unknown>[];
  readonly during: number;
  readonly after: number;
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** Serves one request through the envelope at `level`, `answer` writing the response unless the envelope did. */
async function serveOne(level: LevelWithSilent, entry: Entry, answer: (envelope: RequestEnvelope, res: http.ServerResponse) => void, request: http.RequestOptions = {}): Promise<Served> {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => { lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>); done(); } });
  const inFlight: InFlight = { count: 0 };
  const envelope = new RequestEnvelope(pino({ level }, sink), inFlight);
  let during = -1;
  const server = http.createServer((req, res) => {
    during = inFlight.count;
    res.on('close', () => server.close());
    const answered = entry === 'enter' ? envelope.enter(req, res) : envelope.enterFast(req, res, 'x', '/v1/:ref/rest/v1/:relation') === null;
    if (!answered) answer(envelope, res);
    during = inFlight.count;
  });
  const closed = new Promise<void>((resolve) => server.once('close', resolve));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const reply = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve) => {
    http.request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x/rest/v1/todos?apikey=secret`, { agent: false, ...request }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    }).end();
  });
  await closed;
  return { lines, during, after: inFlight.count, ...reply };
}

const tea = (_envelope: RequestEnvelope, res: http.ServerResponse): void => {
  res.statusCode = 418;
  res.end('tea');
};

describe('RequestEnvelope', () => {
  it('counts the request in flight until it closes and logs one line with the route template, without the path or query string, at info', async () => {
    const { lines, during, after } = await serveOne('info' satisfies Level, 'enter', tea);
    expect([during, after]).toEqual([1, 0]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'request', ref: '', api: 'rest', method: 'GET', route: '/v1/:ref/rest/v1/:relation', status: 418 });
    expect(typeof lines[0]!.duration_ms).toBe('number');
    expect(lines[0]!.request_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('counts the request but logs nothing below info', async () => {
    const { lines, during, after } = await serveOne('warn', 'enter', tea);
    expect({ lines, during, after }).toEqual({ lines: [], during: 1, after: 0 });
  });

  it('sets CORS headers on the express entry, leaves them to the handler on the fast path', async () => {
    expect((await serveOne('silent', 'enter', tea)).headers['access-control-allow-origin']).toBe('*');
    expect((await serveOne('silent', 'enterFast', tea)).headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers a preflight on both entries', async () => {
    for (const entry of ['enter', 'enterFast'] as const) {
      const served = await serveOne('silent', entry, tea, { method: 'OPTIONS', headers: { 'access-control-request-method': 'POST' } });
      expect([served.status, served.headers['access-control-allow-methods']]).toEqual([204, 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS']);
    }
  });

  it('writes the 500 and the 404 bodies with CORS, on both entries', async () => {
    for (const entry of ['enter', 'enterFast'] as const) {
      const failed = await serveOne('silent', entry, (envelope, res) => envelope.failed(res, new Error('boom')));
      expect([failed.status, failed.headers['access-control-allow-origin'], JSON.parse(failed.body)]).toEqual([500, '*', { message: 'internal server error', code: 'XX000', details: null, hint: null }]);
      const missing = await serveOne('silent', entry, (envelope, res) => envelope.notFound(res));
      expect([missing.status, JSON.parse(missing.body)]).toEqual([404, { message: 'not found', code: 'PGRST125', details: null, hint: null }]);
    }
  });

  it('keeps a body parser’s 4xx status as PGRST102', async () => {
    const served = await serveOne('silent', 'enter', (envelope, res) => envelope.failed(res, Object.assign(new Error('request entity too large'), { status: 413 })));
    expect([served.status, JSON.parse(served.body)]).toEqual([413, { message: 'request entity too large', code: 'PGRST102', details: null, hint: null }]);
  });

  it('enters no request scope on the fast path, and names the request on its error line itself', async () => {
    // On Node 20 an entered AsyncLocalStorage runs a hook for every promise of the process: the 20-row read paid for it.
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => { lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>); done(); } });
    const envelope = new RequestEnvelope(pino({ level: 'error' }, sink), { count: 0 });
    let inScope: unknown = 'not reached';
    const server = http.createServer((req, res) => {
      res.on('close', () => server.close());
      const scope = envelope.enterFast(req, res, 'x', '/v1/:ref/rest/v1/:relation');
      inScope = currentRequest();
      envelope.failed(res, new Error('boom'), scope!);
    });
    const closed = new Promise<void>((resolve) => server.once('close', resolve));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const status = await new Promise<number>((resolve) => {
      http.request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x/rest/v1/todos`, { agent: false, headers: { 'x-request-id': 'fast-1' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      }).end();
    });
    await closed;
    expect([status, inScope]).toEqual([500, undefined]);
    expect(lines.map(({ msg, ref, api, request_id }) => ({ msg, ref, api, request_id }))).toEqual([{ msg: 'unhandled error', ref: 'x', api: 'rest', request_id: 'fast-1' }]);
  });
});
