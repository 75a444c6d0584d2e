import { createServer, type Server as NetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { callsEnv, dropQueueSchema, eventually } from '../helpers/calls/harness.js';
import { referenceCall, synthesize } from '../helpers/calls/synth.js';
import { encodeWav } from '../helpers/calls/wav-writer.js';
import { cliOk, installation, jsonObject, removeInstallation, serve, type Installation, type Server } from '../helpers/serve-process.js';
import { request, uniqueRef, type Answer } from '../helpers/blackbox-projects.js';

/**
 * Recordings from servers that close the connection after the body, as ordinary file servers do
 * (`python3 -m http.server`): the body arrives faster than the analysis decodes it, so the
 * download is held back by backpressure when the server's FIN arrives. That once killed the whole
 * host with an uncatchable assertion in the HTTP client (nodejs/undici#5360); the host must stay up
 * and every analysis must finish.
 */

vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

const SAMPLE_RATE = 16_000;
const DURATION_S = 51;
/** The reference call's tones in a 51 s stereo recording: 3.3 MB, far more than the decoder takes in at once. */
const WAV = Buffer.from(encodeWav(synthesize({ ...referenceCall(SAMPLE_RATE), durationS: DURATION_S }), SAMPLE_RATE, 's16'));

const FRAMINGS = ['length', 'chunked', 'eof'] as const;
const PACES = ['fast', 'slow'] as const;
type Framing = (typeof FRAMINGS)[number];
type Pace = (typeof PACES)[number];

/** How each response marks where its body ends; every one also says `Connection: close`. */
const FRAMING_HEADER: Record<Framing, string> = {
  length: `Content-Length: ${WAV.length}\r\n`,
  chunked: 'Transfer-Encoding: chunked\r\n',
  eof: '',
};

function bodyPieces(framing: Framing, size: number): Buffer[] {
  const pieces: Buffer[] = [];
  for (let offset = 0; offset < WAV.length; offset += size) {
    const data = WAV.subarray(offset, offset + size);
    pieces.push(framing === 'chunked' ? Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]) : data);
  }
  if (framing === 'chunked') pieces.push(Buffer.from('0\r\n\r\n'));
  return pieces;
}

/**
 * Answers `GET /<framing>-<pace>.wav` with the recording, then ends its side of the connection
 * (FIN). Fast writes the whole response at once; slow trickles it in 32 KB pieces every 5 ms.
 * Written on raw sockets so the framing is exactly what the test names.
 */
async function startClosingServer(): Promise<{ url: string; hits: Map<string, number>; close(): Promise<void> }> {
  const hits = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server: NetServer = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let head = '';
    const onData = (chunk: Buffer): void => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      const path = /^GET (\S+) HTTP/.exec(head)?.[1] ?? '';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const match = /^\/(length|chunked|eof)-(fast|slow)\.wav$/.exec(path);
      if (!match) {
        socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        return;
      }
      const [framing, pace] = [match[1] as Framing, match[2] as Pace];
      socket.write(`HTTP/1.1 200 OK\r\nContent-Type: audio/wav\r\nConnection: close\r\n${FRAMING_HEADER[framing]}\r\n`);
      if (pace === 'fast') {
        socket.end(Buffer.concat(bodyPieces(framing, 64 * 1024)));
        return;
      }
      const pieces = bodyPieces(framing, 32 * 1024);
      const timer = setInterval(() => {
        const piece = pieces.shift();
        if (piece) socket.write(piece);
        if (pieces.length === 0) {
          clearInterval(timer);
          socket.end();
        }
      }, 5);
      socket.on('close', () => clearInterval(timer));
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const env = callsEnv();
let recordings: Awaited<ReturnType<typeof startClosingServer>>;
let inst: Installation;
let host: Server;
let apiKey: string;

/** Fails with the host's output when it has exited: its last words are the reason. */
function expectAlive(): void {
  expect(host.child.exitCode, `gantry serve exited:\n${host.output()}`).toBeNull();
}

/** A request to the calls API; a refused connection is reported with the host's state. */
async function api(method: string, path: string, body?: unknown): Promise<Answer> {
  try {
    return await request(`${inst.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    expectAlive();
    throw error;
  }
}

beforeAll(async () => {
  recordings = await startClosingServer();
  inst = await installation({ env });
  host = await serve(inst);
  const created = jsonObject(await cliOk(['calls', 'key', 'create', '--tenant', uniqueRef('fin').replaceAll('_', '-'), '--json'], inst.env));
  apiKey = String(created.key);
});
afterAll(async () => {
  if (host) expect(await host.stop(), host.output()).toBe(0);
  if (inst) await removeInstallation(inst);
  await dropQueueSchema(env.CALLS_QUEUE_SCHEMA!);
  await recordings?.close();
});

describe('recordings from servers that close the connection after the body', () => {
  it('every framing, fast and trickled: the host stays up and each analysis completes', async () => {
    const submitted: { name: string; id: string }[] = [];
    for (const framing of FRAMINGS) {
      for (const pace of PACES) {
        const name = `${framing}-${pace}`;
        const answer = await api('POST', '/v1/calls/analyze', { audio_url: `${recordings.url}/${name}.wav`, language: 'en-GB', operator_id: 'op-1' });
        expect(answer.status, answer.text).toBe(202);
        submitted.push({ name, id: (answer.body as { id: string }).id });
      }
    }

    for (const { name, id } of submitted) {
      const call = await eventually(async () => {
        expectAlive();
        const answer = await api('GET', `/v1/calls/${id}`);
        expect(answer.status, answer.text).toBe(200);
        const body = answer.body as { status: string };
        return body.status === 'completed' || body.status === 'failed' ? body : null;
      }, 120_000, `the analysis of ${name}.wav`);
      expect(call, name).toMatchObject({
        status: 'completed',
        error: null,
        result: {
          audio: { container: 'wav', codec: 'pcm_s16le', sample_rate_hz: SAMPLE_RATE, channels: 2, duration_s: DURATION_S },
          segments: [
            [[0, 3], [6, 8], [14, 16]],
            [[3, 6], [7.5, 9], [16, 18]],
          ],
          talk: { operator_s: 7, customer_s: 6.5 },
        },
      });
    }
    expect(Object.fromEntries(recordings.hits)).toEqual(Object.fromEntries(submitted.map(({ name }) => [`/${name}.wav`, 1])));

    expectAlive();
    expect((await request(`${inst.baseUrl}/health`)).status).toBe(200);
    expect((await request(`${inst.apiUrl}/health`)).status).toBe(200);
    const authors = await request(`${inst.baseUrl}/v1/demo/rest/v1/authors?select=id&limit=1`, { headers: { apikey: host.anonKey } });
    expect([authors.status, Array.isArray(authors.body)], authors.text).toEqual([200, true]);
  });
});
