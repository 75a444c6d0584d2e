import diagnostics from 'node:diagnostics_channel';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FetchError } from '../../../runtime/outbound/errors.js';
import { fetchRecording, type FetchRecordingOptions } from '../../../runtime/calls/fetch/fetch-recording.js';
import type { Resolver } from '../../../runtime/outbound/guarded-request.js';
import { checkOutboundUrl, redirectTarget } from '../../../runtime/outbound/outbound-url.js';
import { analyzeRecording } from '../../../runtime/calls/analysis/analyze.js';
import { expectReferenceTimings } from '../../helpers/calls/reference.js';
import { referenceCall, synthesize, TONE_ANALYSIS } from '../../helpers/calls/synth.js';
import { encodeWav } from '../../helpers/calls/wav-writer.js';

const AUDIO = Buffer.from('RIFF....WAVEfmt ' + 'x'.repeat(1000));
const CALL = Buffer.from(encodeWav(synthesize(referenceCall(8000)), 8000, 'mulaw'));

/**
 * Every TCP client socket Node creates is reported here, with its lookup outcome and whether it
 * connected: the proof that a refused URL never opened a connection.
 */
interface SocketTrace {
  lookup?: string;
  connectedTo?: string;
}
const opened: SocketTrace[] = [];
const onSocket = (message: unknown): void => {
  const socket = (message as { socket: Socket }).socket;
  const trace: SocketTrace = {};
  opened.push(trace);
  socket.once('lookup', (error: Error | null, address: string) => {
    trace.lookup = error ? `refused: ${(error as { code?: string }).code}` : address;
  });
  socket.once('connect', () => {
    trace.connectedTo = socket.remoteAddress;
  });
};

let server: Server;
let base: string;
const hosts: string[] = [];

beforeAll(async () => {
  diagnostics.subscribe('net.client.socket', onSocket);
  server = createServer((req, res) => {
    hosts.push(req.headers.host ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    switch (url.pathname) {
      case '/audio':
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': AUDIO.length }).end(AUDIO);
        return;
      case '/call.wav':
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': CALL.length }).end(CALL);
        return;
      case '/stream': {
        res.writeHead(200, { 'content-type': 'audio/wav' });
        const chunk = Buffer.alloc(16 * 1024, 1);
        for (let i = 0; i < 8; i++) res.write(chunk);
        res.end();
        return;
      }
      case '/redirect':
        res.writeHead(302, { location: url.searchParams.get('to') ?? '/audio' }).end();
        return;
      case '/loop':
        res.writeHead(301, { location: '/loop' }).end();
        return;
      case '/slow':
        res.writeHead(200, { 'content-type': 'audio/wav' });
        res.write('RIFF');
        return;
      case '/silent':
        return;
      default:
        res.writeHead(404, { 'content-type': 'text/html' }).end('<html>Not found</html>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  diagnostics.unsubscribe('net.client.socket', onSocket);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  opened.length = 0;
  hosts.length = 0;
});

const open: FetchRecordingOptions = { allowPrivate: true };
const strict: FetchRecordingOptions = { allowPrivate: false };

async function read(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of body) parts.push(part);
  return Buffer.concat(parts);
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string; status?: number }> {
  try {
    const result = await promise;
    if (result && typeof result === 'object' && 'body' in result) await read((result as { body: AsyncIterable<Uint8Array> }).body);
  } catch (error) {
    expect(error).toBeInstanceOf(FetchError);
    const { code, message, status } = error as FetchError;
    return status === undefined ? { code, message } : { code, message, status };
  }
  throw new Error('the fetch succeeded');
}

const resolverFor = (table: Record<string, string[]>, calls: string[] = []): Resolver => async (hostname) => {
  calls.push(hostname);
  return (table[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('URL checks', () => {
  it.each([
    ['ftp://example.com/a.wav', 'scheme ftp is not allowed; use http or https'],
    ['file:///etc/passwd', 'scheme file is not allowed; use http or https'],
    ['https://user:secret@example.com/a.wav', 'URLs with credentials are not allowed'],
    ['not a url', 'not an absolute URL'],
  ])('%s is invalid_url', (url, message) => {
    expect(() => checkOutboundUrl(url, { allowPrivate: true })).toThrow(expect.objectContaining({ code: 'invalid_url', message }));
  });
});

describe('redirect targets', () => {
  const from = new URL('https://cdn.example/a/b.wav');
  it('resolves relative locations and keeps https', () => {
    expect(redirectTarget(from, '../c.wav?x=1', { allowPrivate: false }).href).toBe('https://cdn.example/c.wav?x=1');
  });
  it('refuses a downgrade to http, other schemes and blocked literals', () => {
    expect(() => redirectTarget(from, 'http://cdn.example/a.wav', { allowPrivate: true })).toThrow(
      expect.objectContaining({ code: 'invalid_url', message: 'redirect from https to http refused' }),
    );
    expect(() => redirectTarget(from, 'file:///etc/passwd', { allowPrivate: true })).toThrow(expect.objectContaining({ code: 'invalid_url' }));
    expect(() => redirectTarget(from, 'https://[::1]/', { allowPrivate: false })).toThrow(expect.objectContaining({ code: 'url_blocked' }));
  });
});

// Hostname cases use http URLs: Node reports sockets on the `net.client.socket` channel only for
// net.connect, not for tls.connect, and the lookup (where the refusal happens) is the same for both.
describe('fetchRecording against a local server', () => {
  it('streams the body when private addresses are allowed', async () => {
    const fetched = await fetchRecording(`${base}/audio`, open);
    expect(fetched).toMatchObject({ url: `${base}/audio`, contentType: 'audio/wav', contentLength: AUDIO.length });
    expect(await read(fetched.body)).toEqual(AUDIO);
  });

  it('feeds the streamed body straight into the analysis', async () => {
    const fetched = await fetchRecording(`${base}/call.wav`, open);
    const result = await analyzeRecording(fetched.body, TONE_ANALYSIS);
    expect(result.audio.codec).toBe('pcm_mulaw');
    expectReferenceTimings(result, 0);
  });

  it.each([
    ['127.0.0.1', (port: number) => `http://127.0.0.1:${port}/audio`, '127.0.0.1 is a loopback address'],
    ['[::1]', (port: number) => `http://[::1]:${port}/audio`, '::1 is a loopback address'],
    ['[::ffff:127.0.0.1]', (port: number) => `http://[::ffff:127.0.0.1]:${port}/audio`, '::ffff:7f00:1 is a loopback address'],
    ['169.254.169.254', () => 'http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a cloud metadata address'],
    ['169.254.1.1', () => 'http://169.254.1.1/', '169.254.1.1 is a linkLocal address'],
    ['[fd00:ec2::254]', () => 'http://[fd00:ec2::254]/latest/meta-data/', 'fd00:ec2::254 is a cloud metadata address'],
    ['10.0.0.1', () => 'https://10.0.0.1/a.wav', '10.0.0.1 is a private address'],
  ])('refuses the raw IP host %s before connecting', async (_name, url, message) => {
    const port = (server.address() as AddressInfo).port;
    expect(await refusal(fetchRecording(url(port), strict))).toEqual({ code: 'url_blocked', message });
    expect(opened).toEqual([]);
  });

  it('refuses the metadata address even when private addresses are allowed', async () => {
    expect(await refusal(fetchRecording('http://169.254.169.254/latest/meta-data/', open))).toEqual({
      code: 'url_blocked',
      message: '169.254.169.254 is a cloud metadata address',
    });
    expect(opened).toEqual([]);
  });

  it('refuses a hostname that resolves to 10.x, at lookup, without connecting', async () => {
    const calls: string[] = [];
    const resolve = resolverFor({ 'recordings.example': ['10.20.30.40'] }, calls);
    expect(await refusal(fetchRecording('http://recordings.example/call.wav', { ...strict, resolve }))).toEqual({
      code: 'url_blocked',
      message: 'recordings.example is resolving to a private address (10.20.30.40)',
    });
    expect(calls).toEqual(['recordings.example']);
    expect(opened).toEqual([{ lookup: 'refused: url_blocked' }]);
  });

  it('refuses a hostname when any of its addresses is blocked', async () => {
    const resolve = resolverFor({ 'mixed.example': ['93.184.216.34', '127.0.0.1'] });
    expect((await refusal(fetchRecording('http://mixed.example/a.wav', { ...strict, resolve }))).code).toBe('url_blocked');
    expect(opened).toEqual([{ lookup: 'refused: url_blocked' }]);
  });

  it('connects to the address it checked (pinned), with the original Host header', async () => {
    const port = (server.address() as AddressInfo).port;
    const resolve = resolverFor({ 'recordings.test': ['127.0.0.1'] });
    const fetched = await fetchRecording(`http://recordings.test:${port}/audio`, { ...open, resolve });
    expect(await read(fetched.body)).toEqual(AUDIO);
    expect(hosts).toEqual([`recordings.test:${port}`]);
    expect(opened).toEqual([{ lookup: '127.0.0.1', connectedTo: '127.0.0.1' }]);
  });

  it('refuses localhost by default (system resolver)', async () => {
    const port = (server.address() as AddressInfo).port;
    expect((await refusal(fetchRecording(`http://localhost:${port}/audio`, strict))).code).toBe('url_blocked');
    expect(hosts).toEqual([]);
  });

  it('re-checks every redirect: a hop to loopback is refused before it connects', async () => {
    const port = (server.address() as AddressInfo).port;
    const policy = { allowPrivate: false, allowCidrs: ['127.0.0.1/32'] };
    const first = await fetchRecording(`${base}/redirect?to=/audio`, policy);
    expect(await read(first.body)).toEqual(AUDIO);
    opened.length = 0;
    expect(await refusal(fetchRecording(`${base}/redirect?to=http://[::1]:${port}/audio`, policy))).toEqual({
      code: 'url_blocked',
      message: '::1 is a loopback address',
    });
    const resolve = resolverFor({ 'internal.test': ['127.0.0.2'] });
    expect(await refusal(fetchRecording(`${base}/redirect?to=http://internal.test:${port}/audio`, { ...policy, resolve }))).toEqual({
      code: 'url_blocked',
      message: 'internal.test is resolving to a loopback address (127.0.0.2)',
    });
    expect(await refusal(fetchRecording(`${base}/redirect?to=http://169.254.169.254/`, open))).toEqual({
      code: 'url_blocked',
      message: '169.254.169.254 is a cloud metadata address',
    });
    // One connection per first hop, all to the local server; the refused hops never connected.
    expect(opened.map((trace) => trace.connectedTo).filter(Boolean)).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1']);
    expect(opened.filter((trace) => trace.lookup?.startsWith('refused'))).toEqual([{ lookup: 'refused: url_blocked' }]);
  });

  it('stops after maxRedirects', async () => {
    expect(await refusal(fetchRecording(`${base}/loop`, { ...open, maxRedirects: 3 }))).toEqual({
      code: 'too_many_redirects',
      message: 'more than 3 redirects',
    });
  });

  it('refuses a declared size over the cap before reading the body', async () => {
    expect(await refusal(fetchRecording(`${base}/audio`, { ...open, maxBytes: 100 }))).toEqual({
      code: 'file_too_large',
      message: 'the recording is larger than 100 bytes',
    });
  });

  it('counts streamed bytes when there is no Content-Length', async () => {
    const fetched = await fetchRecording(`${base}/stream`, { ...open, maxBytes: 50_000 });
    expect(fetched.contentLength).toBeNull();
    expect(await refusal(read(fetched.body))).toEqual({ code: 'file_too_large', message: 'the recording is larger than 50000 bytes' });
    const whole = await fetchRecording(`${base}/stream`, { ...open, maxBytes: 128 * 1024 });
    expect((await read(whole.body)).length).toBe(128 * 1024);
  });

  it('times out a stalled body', async () => {
    const fetched = await fetchRecording(`${base}/slow`, { ...open, timeoutMs: 300 });
    expect(await refusal(read(fetched.body))).toEqual({ code: 'download_timeout', message: 'the download timed out' });
  });

  it('reports a cancelled download as download_failed, not as a time-out', async () => {
    const cancel = new AbortController();
    const fetched = await fetchRecording(`${base}/slow`, { ...open, signal: cancel.signal });
    setTimeout(() => cancel.abort(), 50);
    expect(await refusal(read(fetched.body))).toEqual({ code: 'download_failed', message: 'the download was cancelled' });
  });

  it('reports a non-200 status without echoing the body', async () => {
    expect(await refusal(fetchRecording(`${base}/missing`, open))).toEqual({
      code: 'download_failed',
      message: 'the server answered 404',
      status: 404,
    });
  });

  it('reports an unknown host as download_failed', async () => {
    const resolve = resolverFor({});
    expect(await refusal(fetchRecording('https://nowhere.test/a.wav', { ...strict, resolve }))).toEqual({
      code: 'download_failed',
      message: 'the download failed (ENOTFOUND)',
    });
  });

  it('times out a server that never answers', async () => {
    expect(await refusal(fetchRecording(`${base}/silent`, { ...open, headersTimeoutMs: 200 }))).toEqual({
      code: 'download_timeout',
      message: 'the download timed out',
    });
  });

  it('never times out a body the reader holds back', async () => {
    const fetched = await fetchRecording(`${base}/stream`, { ...open, bodyTimeoutMs: 100 });
    const parts: Uint8Array[] = [];
    for await (const part of fetched.body as AsyncIterable<Uint8Array>) {
      parts.push(part);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(Buffer.concat(parts).length).toBe(128 * 1024);
  });
});

/**
 * A body held back by a slow reader while the server sends it all and closes the connection: the
 * state in which undici's parser asserted and took the process down (nodejs/undici#5360). Written
 * on raw sockets so the framing is exactly the one named.
 */
describe('fetchRecording from a server that closes the connection after the body', () => {
  const BODY = Buffer.alloc(2 * 1024 * 1024, 7);
  const FRAMING: Record<string, (body: Buffer) => [string, Buffer]> = {
    'Content-Length': (body) => [`Content-Length: ${body.length}\r\n`, body],
    chunked: (body) => ['Transfer-Encoding: chunked\r\n', Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')])],
    'no length': (body) => ['', body],
  };
  let closing: ReturnType<typeof createNetServer>;
  let closingBase: string;

  beforeAll(async () => {
    closing = createNetServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', (head) => {
        const framing = decodeURIComponent(/^GET \/(\S*) /.exec(head.toString('latin1'))?.[1] ?? '');
        const [header, body] = FRAMING[framing]!(BODY);
        socket.end(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nConnection: close\r\n${header}\r\n`), body]));
      });
    });
    await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve));
    closingBase = `http://127.0.0.1:${(closing.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => closing.close(resolve)));

  it.each(Object.keys(FRAMING))('%s: the whole body arrives', async (framing) => {
    const fetched = await fetchRecording(`${closingBase}/${encodeURIComponent(framing)}`, open);
    // Slower than loopback delivers: the body is held back when the server's FIN arrives.
    let received = 0;
    for await (const part of fetched.body as AsyncIterable<Uint8Array>) {
      received += part.length;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(received).toBe(BODY.length);
  });
});
