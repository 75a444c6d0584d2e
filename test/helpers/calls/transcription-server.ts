import type { IncomingMessage } from 'node:http';
import { closeServer, listen } from './harness.js';

/**
 * A local server speaking OpenAI's `POST /v1/audio/transcriptions` (multipart upload, verbose_json
 * answer). It records every upload; `answer` decides the reply (by default two words at fixed
 * times in every chunk: "hello" 0.1-0.4 s, "world" 0.5-0.9 s).
 */
export interface Upload {
  readonly authorization: string | undefined;
  readonly fields: Record<string, string[]>;
  readonly file: Buffer;
  readonly fileType: string;
}

export type Answer = (upload: Upload) => { status: number; body: unknown };

export const TWO_WORDS: Answer = () => ({
  status: 200,
  body: {
    text: 'hello world',
    language: 'english',
    duration: 15,
    words: [
      { word: 'hello', start: 0.1, end: 0.4 },
      { word: ' world', start: 0.5, end: 0.9, probability: 0.8 },
    ],
    segments: [{ id: 0, start: 0, end: 1, text: 'hello world', avg_logprob: Math.log(0.5) }],
  },
});

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** Splits a multipart/form-data body into its fields and its one file. */
function parseMultipart(body: Buffer, contentType: string): Omit<Upload, 'authorization'> {
  const boundary = /boundary=(.+)$/.exec(contentType)![1]!;
  const fields: Record<string, string[]> = {};
  let file = Buffer.alloc(0);
  let fileType = '';
  let at = body.indexOf(`--${boundary}`);
  while (at >= 0) {
    const next = body.indexOf(`\r\n--${boundary}`, at + 1);
    if (next < 0) break;
    const part = body.subarray(body.indexOf('\r\n', at) + 2, next);
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString();
    const content = part.subarray(split + 4);
    const name = /name="([^"]+)"/.exec(head)![1]!;
    if (/filename=/.test(head)) {
      file = Buffer.from(content);
      fileType = /Content-Type: (\S+)/i.exec(head)?.[1] ?? '';
    } else {
      (fields[name] ??= []).push(content.toString());
    }
    at = next + 2;
  }
  return { fields, file, fileType };
}

export interface TranscriptionServer {
  /** The base URL engines are configured with (`…/v1`). */
  readonly baseUrl: string;
  readonly uploads: Upload[];
  answer: Answer;
  close(): Promise<void>;
}

export async function startTranscriptionServer(): Promise<TranscriptionServer> {
  const state = { answer: TWO_WORDS };
  const uploads: Upload[] = [];
  const { server, url } = await listen((req, res) => {
    void readAll(req).then((body) => {
      if (req.method !== 'POST' || req.url !== '/v1/audio/transcriptions') {
        res.statusCode = 404;
        res.end();
        return;
      }
      const upload = { authorization: req.headers.authorization, ...parseMultipart(body, req.headers['content-type'] ?? '') };
      uploads.push(upload);
      const { status, body: json } = state.answer(upload);
      res.statusCode = status;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(json));
    });
  });
  return {
    baseUrl: `${url}/v1`,
    uploads,
    get answer() {
      return state.answer;
    },
    set answer(answer: Answer) {
      state.answer = answer;
    },
    close: () => closeServer(server),
  };
}
