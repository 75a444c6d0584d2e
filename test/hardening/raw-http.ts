import net from 'node:net';

/**
 * HTTP/1.1 over a raw socket, so a test sees exactly what a client receives and when: the
 * interim `100 Continue`, a final answer that arrives while the body is still unsent, and
 * whether the server then ends the connection.
 */

/** Longest wait for something the server must do; a server that never answers fails the test instead of hanging it. */
const WAIT_MS = 20_000;

export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface RawConnection {
  readonly socket: net.Socket;
  /** Everything received so far, as latin1 text. */
  received(): string;
  /** Writes and waits until the socket took the bytes (or the server closed it: then false). */
  write(data: string | Buffer): Promise<boolean>;
  /** Resolves once `100 Continue` arrived; fails if a final answer came instead. */
  continued(): Promise<void>;
  /** The first final (non-1xx) response, once its head and Content-Length body are in. */
  response(): Promise<RawResponse>;
  /** Resolves when the server has ended the connection; `ended` says it sent FIN (not a reset). */
  closed(): Promise<{ readonly ended: boolean }>;
  destroy(): void;
}

export function connect(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    let text = '';
    let ended = false;
    const waiters: (() => void)[] = [];
    const notify = (): void => {
      for (const waiter of waiters.splice(0)) waiter();
    };
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      notify();
    });
    socket.on('end', () => {
      ended = true;
      notify();
    });
    // A reset after the answer is a failure the assertions report (ended stays false).
    socket.on('error', () => undefined);
    const isClosed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('close', notify);

    const until = <T>(what: string, check: () => T | null): Promise<T> =>
      new Promise((done, fail) => {
        const timer = setTimeout(() => fail(new Error(`no ${what} within ${WAIT_MS} ms; received: ${JSON.stringify(text.slice(0, 300))}`)), WAIT_MS);
        const attempt = (): void => {
          let value: T | null;
          try {
            value = check();
          } catch (error) {
            clearTimeout(timer);
            fail(error as Error);
            return;
          }
          if (value !== null) {
            clearTimeout(timer);
            done(value);
          } else if (socket.destroyed) {
            clearTimeout(timer);
            fail(new Error(`connection closed before a ${what}; received: ${JSON.stringify(text.slice(0, 300))}`));
          } else waiters.push(attempt);
        };
        attempt();
      });

    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve({
        socket,
        received: () => text,
        write: (data) =>
          new Promise((done) => {
            if (socket.destroyed || socket.writableEnded) {
              done(false);
              return;
            }
            socket.write(data, (error) => done(!error));
          }),
        continued: () =>
          until('100 Continue', () => {
            if (text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) return true;
            if (text.includes('\r\n\r\n')) throw new Error(`a final answer instead of 100 Continue: ${JSON.stringify(text.slice(0, 300))}`);
            return null;
          }).then(() => undefined),
        response: () => until('response', () => parseFinalResponse(text)),
        closed: async () => {
          await Promise.race([
            isClosed,
            new Promise((_, fail) => setTimeout(() => fail(new Error(`the server did not close the connection within ${WAIT_MS} ms`)), WAIT_MS).unref()),
          ]);
          return { ended };
        },
        destroy: () => socket.destroy(),
      });
    });
  });
}

/** The first non-1xx response in `text`, or null while incomplete. */
export function parseFinalResponse(text: string): RawResponse | null {
  let rest = text;
  for (;;) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) return null;
    const [statusLine, ...lines] = rest.slice(0, headEnd).split('\r\n');
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1]);
    const after = rest.slice(headEnd + 4);
    if (status >= 100 && status < 200) {
      rest = after;
      continue;
    }
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const bytes = Buffer.from(after, 'latin1');
    if (bytes.length < length) return null;
    return { status, headers, body: bytes.subarray(0, length).toString('utf8') };
  }
}

/** A request head: request line, `Host`, the given headers, blank line. */
export function head(method: string, url: string, headers: Readonly<Record<string, string>>): string {
  const { host, pathname, search } = new URL(url);
  const lines = [`${method} ${pathname}${search} HTTP/1.1`, `Host: ${host}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** One chunk of a chunked body. */
export function chunk(data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
}

export interface ChunkedResult {
  readonly response: RawResponse;
  /** Body bytes the client had written when the answer arrived. */
  readonly sent: number;
}

/**
 * Sends `piece` as chunks until the server answers (or `maxBytes` are sent, then the last
 * chunk), as a client streaming an upload does; returns the answer and how much was sent.
 */
export async function streamUntilAnswered(connection: RawConnection, piece: Buffer, maxBytes: number): Promise<ChunkedResult> {
  let sent = 0;
  let answer: RawResponse | null = null;
  const answered = connection.response().then((response) => {
    answer = response;
    return response;
  });
  while (answer === null && sent < maxBytes && (await connection.write(chunk(piece)))) sent += piece.length;
  if (answer === null && sent >= maxBytes) await connection.write('0\r\n\r\n');
  return { response: await answered, sent };
}

/** Nested arrays `depth` levels deep around `inner`. */
export function nestedArrays(depth: number, inner = '1'): string {
  return `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
}

/** Nested objects `{"a":{"a":…}}` `depth` levels deep around `inner`. */
export function nestedObjects(depth: number, inner = '1'): string {
  return `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`;
}
