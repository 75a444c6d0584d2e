import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../runtime/calls/keys.js';
import { createTestProject, startTestHost, type TestHost, type TestProject } from '../helpers/platform.js';
import { connect, head, streamUntilAnswered, type RawConnection, type RawResponse } from './raw-http.js';

/**
 * Issue "Hardening" item 4: a body over an endpoint's limit is refused at once (a declared
 * length before a byte is read, `Expect: 100-continue` without the 100, a chunked body as soon
 * as it passes the limit) and the client reads the 413 before the connection closes.
 */

const FIFTY_MB = 50 * 1024 * 1024;
const REST_LIMIT = 10 * 1024 * 1024;
const AUTH_LIMIT = 1024 * 1024;
const CALLS_LIMIT = 16 * 1024;
const PIECE = Buffer.alloc(64 * 1024, 'x');

const SCHEMA = `
CREATE TABLE public.docs (id serial PRIMARY KEY, body jsonb);
GRANT ALL ON public.docs TO anon, authenticated, service_role;
GRANT USAGE ON SEQUENCE public.docs_id_seq TO anon, authenticated, service_role;
`;

let t: TestHost;
let project: TestProject;
let callsKey: string;

beforeAll(async () => {
  t = await startTestHost();
  project = await createTestProject(t.platform, { sql: SCHEMA, host: t.host, generate: true });
  callsKey = (await createApiKey(t.platform.pool, `tenant_${randomBytes(5).toString('hex')}`)).key;
});
afterAll(() => t?.close());

function restUrl(): string {
  return `${project.url}/rest/v1/docs`;
}

function restHeaders(extra: Record<string, string>): Record<string, string> {
  return { apikey: project.keys.anon_key, 'Content-Type': 'application/json', ...extra };
}

/** The answer, then the connection ended by the server with a FIN (the client read everything). */
async function answerThenClose(connection: RawConnection, answer: Promise<RawResponse>): Promise<RawResponse> {
  const response = await answer;
  expect(response.headers.connection).toBe('close');
  expect(await connection.closed()).toEqual({ ended: true });
  return response;
}

/** Streams a chunked body until the answer: it comes long before 50 MB, and the server then ends the connection. */
async function streamPastLimit(url: string, headers: Record<string, string>): Promise<RawResponse> {
  const connection = await connect(url);
  await connection.write(head('POST', url, { ...headers, 'Transfer-Encoding': 'chunked' }));
  const { response, sent } = await streamUntilAnswered(connection, PIECE, FIFTY_MB);
  expect(sent).toBeLessThan(FIFTY_MB);
  return answerThenClose(connection, Promise.resolve(response));
}

/** A fresh connection still gets served: the refusal left the server healthy. */
async function expectHealthy(): Promise<void> {
  const res = await fetch(`${restUrl()}?select=id&limit=1`, { headers: { apikey: project.keys.anon_key } });
  expect(res.status).toBe(200);
}

const restTooLarge = { code: 'PGRST413', message: `Request body is larger than ${REST_LIMIT} bytes`, details: null, hint: null };

describe('data API: bodies over 10 MiB', () => {
  it('a declared 50 MB body gets its 413 before a byte of it is sent', async () => {
    const connection = await connect(restUrl());
    await connection.write(head('POST', restUrl(), restHeaders({ 'Content-Length': String(FIFTY_MB) })));
    const response = await answerThenClose(connection, connection.response());
    expect([response.status, JSON.parse(response.body)]).toEqual([413, restTooLarge]);
    await expectHealthy();
  });

  it('Expect: 100-continue with a declared 50 MB: 413 and no 100 Continue', async () => {
    const connection = await connect(restUrl());
    await connection.write(head('POST', restUrl(), restHeaders({ 'Content-Length': String(FIFTY_MB), Expect: '100-continue' })));
    const response = await answerThenClose(connection, connection.response());
    expect([response.status, JSON.parse(response.body)]).toEqual([413, restTooLarge]);
    expect(connection.received()).not.toContain('100 Continue');
  });

  it('Expect: 100-continue within the limit: 100 Continue, then the body is read and served', async () => {
    const connection = await connect(restUrl());
    const body = JSON.stringify({ body: { ok: true } });
    await connection.write(head('POST', restUrl(), restHeaders({ 'Content-Length': String(body.length), Expect: '100-continue' })));
    await connection.continued();
    await connection.write(body);
    const response = await connection.response();
    expect([response.status, response.headers.connection]).toEqual([201, 'keep-alive']);
    connection.destroy();
  });

  it('Expect: 100-continue with bad credentials: 401 without inviting the body, and the connection closes', async () => {
    const connection = await connect(restUrl());
    await connection.write(head('POST', restUrl(), { apikey: 'not-a-key', 'Content-Type': 'application/json', 'Content-Length': '1000', Expect: '100-continue' }));
    const response = await answerThenClose(connection, connection.response());
    expect(response.status).toBe(401);
    expect(connection.received()).not.toContain('100 Continue');
  });

  it('a chunked body gets its 413 as soon as it passes the limit, long before 50 MB are sent', async () => {
    const response = await streamPastLimit(restUrl(), restHeaders({}));
    expect([response.status, JSON.parse(response.body)]).toEqual([413, restTooLarge]);
    await expectHealthy();
  });
});

describe('auth: bodies over 1 MiB', () => {
  const tooLarge = { code: 413, error_code: 'request_entity_too_large', msg: 'Request body too large' };

  function signupUrl(): string {
    return `${project.url}/auth/v1/signup`;
  }

  it('a declared 2 MiB body gets its 413 before a byte of it is sent', async () => {
    const connection = await connect(signupUrl());
    await connection.write(head('POST', signupUrl(), restHeaders({ 'Content-Length': String(2 * AUTH_LIMIT) })));
    const response = await answerThenClose(connection, connection.response());
    expect([response.status, JSON.parse(response.body)]).toEqual([413, tooLarge]);
  });

  it('Expect: 100-continue over the limit: 413 and no 100 Continue', async () => {
    const connection = await connect(signupUrl());
    await connection.write(head('POST', signupUrl(), restHeaders({ 'Content-Length': String(2 * AUTH_LIMIT), Expect: '100-continue' })));
    const response = await answerThenClose(connection, connection.response());
    expect(response.status).toBe(413);
    expect(connection.received()).not.toContain('100 Continue');
  });

  it('a chunked body gets its 413 as soon as it passes the limit', async () => {
    const response = await streamPastLimit(signupUrl(), restHeaders({}));
    expect([response.status, JSON.parse(response.body)]).toEqual([413, tooLarge]);
  });
});

describe('call analysis: bodies over 16 KiB', () => {
  function analyzeUrl(): string {
    return `${t.host.apiUrl}/v1/calls/analyze`;
  }

  function callsHeaders(extra: Record<string, string>): Record<string, string> {
    return { Authorization: `Bearer ${callsKey}`, 'Content-Type': 'application/json', ...extra };
  }

  function expectTooLarge(response: RawResponse): void {
    expect(response.status).toBe(413);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(response.body)).toMatchObject({ status: 413, code: 'body_too_large', detail: `the request body is larger than ${CALLS_LIMIT} bytes` });
  }

  it('Expect: 100-continue over the limit: 413 and no 100 Continue', async () => {
    const connection = await connect(analyzeUrl());
    await connection.write(head('POST', analyzeUrl(), callsHeaders({ 'Content-Length': String(FIFTY_MB), Expect: '100-continue' })));
    expectTooLarge(await answerThenClose(connection, connection.response()));
    expect(connection.received()).not.toContain('100 Continue');
  });

  it('a chunked body gets its 413 as soon as it passes the limit, and the client reads it before the close', async () => {
    expectTooLarge(await streamPastLimit(analyzeUrl(), callsHeaders({})));
    const health = await fetch(`${t.host.apiUrl}/health`);
    expect(health.status).toBe(200);
  });
});

describe('request heads over 16 KiB', () => {
  it.each([
    ['project host', (): string => restUrl()],
    ['call-analysis API', (): string => `${t.host.apiUrl}/health`],
  ])('%s: 431 from node, and the connection closes', async (_name, url) => {
    const connection = await connect(url());
    await connection.write(head('GET', url(), { 'X-Padding': 'x'.repeat(20 * 1024) }));
    const response = await answerThenClose(connection, connection.response());
    expect(response.status).toBe(431);
  });
});
