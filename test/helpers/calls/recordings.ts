import type { Server } from 'node:http';
import { closeServer, listen, REFERENCE_WAV } from './harness.js';

/** A local server of test recordings, good and bad, on 127.0.0.1 (or `host`); `extra` adds files by path. */
export async function startRecordingServer(
  extra: Readonly<Record<string, Uint8Array>> = {},
  host?: string,
): Promise<{ url: string; hits: Map<string, number>; close(): Promise<void>; server: Server }> {
  const hits = new Map<string, number>();
  const { server, url } = await listen((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const count = (hits.get(path) ?? 0) + 1;
    hits.set(path, count);
    const query = new URL(req.url ?? '/', 'http://x').searchParams;
    const file = extra[path];
    if (file) {
      res.setHeader('content-type', 'application/octet-stream');
      res.end(file);
      return;
    }
    switch (path) {
      case '/ref.wav':
        res.setHeader('content-type', 'audio/wav');
        res.end(REFERENCE_WAV);
        return;
      case '/big.wav':
        res.setHeader('content-type', 'audio/wav');
        res.end(Buffer.concat([REFERENCE_WAV, REFERENCE_WAV, REFERENCE_WAV, REFERENCE_WAV]));
        return;
      case '/page.html':
        res.setHeader('content-type', 'text/html');
        res.end('<html><body>Access denied</body></html>'.repeat(20));
        return;
      case '/flaky.wav':
        if (count === 1) {
          res.statusCode = 503;
          res.end();
          return;
        }
        res.end(REFERENCE_WAV);
        return;
      case '/slow.wav': {
        // About 2.5 s for the whole file: long enough to stop a server in the middle.
        const step = Math.ceil(REFERENCE_WAV.length / 25);
        let offset = 0;
        res.setHeader('content-length', REFERENCE_WAV.length);
        const timer = setInterval(() => {
          if (res.destroyed) return clearInterval(timer);
          res.write(REFERENCE_WAV.subarray(offset, offset + step));
          offset += step;
          if (offset >= REFERENCE_WAV.length) {
            clearInterval(timer);
            res.end();
          }
        }, 100);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case '/redirect':
        res.statusCode = 302;
        res.setHeader('location', query.get('to') ?? '/');
        res.end();
        return;
      default:
        res.statusCode = 404;
        res.end('not found');
    }
  }, host);
  return { url, hits, server, close: () => closeServer(server) };
}
