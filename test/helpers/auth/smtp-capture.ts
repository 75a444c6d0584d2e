import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  readonly to: string[];
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly raw: string;
}

function decodeBody(body: string, encoding: string | undefined): string {
  const kind = (encoding ?? '7bit').trim().toLowerCase();
  if (kind === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (kind === 'quoted-printable') {
    const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

interface Part {
  readonly headers: Map<string, string>;
  readonly body: string;
}

function splitPart(raw: string): Part {
  const normalised = raw.replace(/\r\n/g, '\n');
  const end = normalised.indexOf('\n\n');
  const head = end === -1 ? normalised : normalised.slice(0, end);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: end === -1 ? '' : normalised.slice(end + 2) };
}

/** Text and HTML bodies of a (possibly multipart/alternative) message; enough for nodemailer's output. */
export function parseMail(raw: string): Omit<CapturedMail, 'to' | 'raw'> {
  const top = splitPart(raw);
  const contentType = top.headers.get('content-type') ?? 'text/plain';
  let text = '';
  let html = '';
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  const parts = boundary
    ? top.body
        .split(`--${boundary}`)
        .slice(1)
        .filter((chunk) => !chunk.startsWith('--'))
        .map((chunk) => splitPart(chunk.replace(/^\n/, '')))
    : [top];
  for (const part of parts) {
    const type = part.headers.get('content-type') ?? 'text/plain';
    const decoded = decodeBody(part.body, part.headers.get('content-transfer-encoding'));
    if (type.startsWith('text/plain')) text = decoded;
    if (type.startsWith('text/html')) html = decoded;
  }
  return { subject: top.headers.get('subject') ?? '', text, html };
}

/** A real SMTP server on an ephemeral port that keeps every message it receives. */
export class SmtpCapture {
  readonly messages: CapturedMail[] = [];
  private waiters: Array<() => void> = [];

  private constructor(
    private readonly server: SMTPServer,
    readonly url: string,
  ) {}

  static async start(): Promise<SmtpCapture> {
    let capture: SmtpCapture | null = null;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth(_auth, _session, callback) {
        callback(null, { user: 'test' });
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          capture?.receive({ ...parseMail(raw), to: session.envelope.rcptTo.map((r) => r.address), raw });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = ((server as unknown as { server: { address(): AddressInfo } }).server.address()).port;
    capture = new SmtpCapture(server, `smtp://tester:secret@127.0.0.1:${port}`);
    return capture;
  }

  private receive(mail: CapturedMail): void {
    this.messages.push(mail);
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** The first message to `to` (and matching the subject part) not yet taken by an earlier call. */
  async waitFor(to: string, subjectContains = '', timeoutMs = 10_000): Promise<CapturedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.messages.findIndex((m) => m.to.includes(to) && m.subject.includes(subjectContains));
      if (index !== -1) return this.messages.splice(index, 1)[0] as CapturedMail;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no mail to ${to} (${subjectContains}) within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  countTo(to: string): number {
    return this.messages.filter((m) => m.to.includes(to)).length;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The verify link of a Gantry mail, read from its text part. */
export function linkFrom(mail: CapturedMail): URL {
  const match = /(https?:\/\/\S+\/auth\/v1\/verify\?\S+)/.exec(mail.text);
  if (!match) throw new Error(`no verify link in mail: ${mail.text}`);
  return new URL(match[1] as string);
}

/** The 6-digit code of a Gantry mail (GoTrue's `{{ .Token }}`), read from its text part. */
export function codeFrom(mail: CapturedMail): string {
  const match = /code: (\d{6})\n/.exec(mail.text) ?? /^(\d{6})$/m.exec(mail.text);
  if (match === null) throw new Error(`no code in mail: ${mail.text}`);
  return match[1] as string;
}
