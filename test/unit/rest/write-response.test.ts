import http, { type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../runtime/rest/errors.js';
import { writeError, writeResponse } from '../../../runtime/rest/respond.js';

const COMMON = { 'Access-Control-Allow-Origin': '*', Vary: 'Accept, Prefer, Range' };

/** What each path of the test server writes. */
const answers: Record<string, (res: ServerResponse) => void> = {
  '/own': (res) => writeResponse(res, { status: 206, headers: { 'Content-Type': 'application/json; charset=utf-8', 'Content-Range': '0-1/5' }, body: '[1,2]' }, COMMON),
  // A header from `response.headers` replaces the caller's of the same name whatever its case.
  '/guc': (res) => writeResponse(res, { status: 200, headers: { vary: 'Origin', 'X-Cache': ['a', 'b'] }, body: 'x' }, COMMON),
  '/empty': (res) => writeResponse(res, { status: 201, headers: { 'Content-Range': '*/*' }, body: null }, COMMON),
  // Set before (express's CORS middleware): merged, not repeated.
  '/preset': (res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    writeResponse(res, { status: 200, headers: { 'Content-Type': 'text/csv; charset=utf-8' }, body: 'a\n1' }, COMMON);
  },
  '/error': (res) => writeError(res, new ApiError(405, 'PGRST117', 'Unsupported HTTP method: PUT'), false, { ...COMMON, Allow: 'GET' }),
};

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => answers[req.url!]!(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** Status, the raw header lines but Date/Connection/Keep-Alive (Node's), and the body. */
function get(path: string): Promise<{ status: number; headers: string[][]; body: string }> {
  return new Promise((resolve, reject) => {
    http.get(`${base}${path}`, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        const headers: string[][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) headers.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
        resolve({ status: res.statusCode!, headers: headers.filter(([name]) => !['Date', 'Connection', 'Keep-Alive'].includes(name!)), body });
      });
    }).on('error', reject);
  });
}

describe('writeResponse', () => {
  it('writes the common headers, then the response\'s, then Content-Length', async () => {
    expect(await get('/own')).toEqual({
      status: 206,
      headers: [['Access-Control-Allow-Origin', '*'], ['Vary', 'Accept, Prefer, Range'], ['Content-Type', 'application/json; charset=utf-8'], ['Content-Range', '0-1/5'], ['Content-Length', '5']],
      body: '[1,2]',
    });
  });

  it('lets a header from SQL replace a common one named in another case, and repeats a header with several values', async () => {
    expect(await get('/guc')).toEqual({
      status: 200,
      headers: [['Access-Control-Allow-Origin', '*'], ['vary', 'Origin'], ['X-Cache', 'a'], ['X-Cache', 'b'], ['Content-Length', '1']],
      body: 'x',
    });
  });

  it('answers a body-less response with Content-Length 0', async () => {
    expect(await get('/empty')).toEqual({
      status: 201,
      headers: [['Access-Control-Allow-Origin', '*'], ['Vary', 'Accept, Prefer, Range'], ['Content-Range', '*/*'], ['Content-Length', '0']],
      body: '',
    });
  });

  it('merges with headers set before instead of repeating them', async () => {
    expect(await get('/preset')).toEqual({
      status: 200,
      headers: [['Access-Control-Allow-Origin', '*'], ['Vary', 'Accept, Prefer, Range'], ['Content-Type', 'text/csv; charset=utf-8'], ['Content-Length', '3']],
      body: 'a\n1',
    });
  });
});

describe('writeError', () => {
  it('writes the common headers before the error\'s own', async () => {
    const body = JSON.stringify({ code: 'PGRST117', details: null, hint: null, message: 'Unsupported HTTP method: PUT' });
    const answer = await get('/error');
    expect(answer.status).toBe(405);
    expect(answer.headers).toEqual([
      ['Access-Control-Allow-Origin', '*'], ['Vary', 'Accept, Prefer, Range'], ['Allow', 'GET'],
      ['Content-Type', 'application/json; charset=utf-8'], ['Content-Length', String(Buffer.byteLength(answer.body))],
    ]);
    expect(JSON.parse(answer.body)).toEqual(JSON.parse(body));
  });
});
