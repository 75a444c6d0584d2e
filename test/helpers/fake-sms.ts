import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One message a fake provider was asked to send. */
export interface CapturedSms {
  readonly provider: 'twilio' | 'vonage';
  readonly path: string;
  /** Basic credentials (Twilio) as `user:password`; '' when none. */
  readonly basic: string;
  readonly form: Readonly<Record<string, string>>;
}

/**
 * A local HTTP server speaking the shape of Twilio's Messages API and Vonage's SMS API, keeping
 * what it was sent. `failNext` makes the next message fail as the provider would answer it; with
 * `twilioAuthToken`, Twilio requests signed with another token are refused as Twilio refuses them.
 */
export class FakeSmsProvider {
  readonly messages: CapturedSms[] = [];
  private failures = 0;

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    private readonly twilioAuthToken: string | null,
  ) {}

  static async start(options: { readonly twilioAuthToken?: string } = {}): Promise<FakeSmsProvider> {
    let provider: FakeSmsProvider | null = null;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => provider?.answer(req, Buffer.concat(chunks).toString('utf8'), res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    provider = new FakeSmsProvider(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, options.twilioAuthToken ?? null);
    return provider;
  }

  failNext(count = 1): void {
    this.failures += count;
  }

  /** The messages sent to a phone (E.164 digits, without "+"). */
  to(phone: string): CapturedSms[] {
    return this.messages.filter((m) => (m.form.To ?? m.form.to ?? '').replace(/^whatsapp:/, '').replace(/^\+/, '') === phone);
  }

  /** The code in the last message to a phone: the first run of 6 to 10 digits in its text. */
  lastCode(phone: string): string {
    const last = this.to(phone).at(-1);
    const text = last?.form.Body ?? last?.form.text ?? '';
    const match = /\d{6,10}/.exec(text);
    if (match === null) throw new Error(`no code texted to ${phone}: ${JSON.stringify(this.messages.map((m) => m.form))}`);
    return match[0];
  }

  private answer(req: http.IncomingMessage, body: string, res: http.ServerResponse): void {
    const form = Object.fromEntries(new URLSearchParams(body));
    const auth = req.headers.authorization ?? '';
    const basic = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8') : '';
    const path = req.url ?? '';
    const twilio = /^\/2010-04-01\/Accounts\/[^/]+\/Messages\.json$/.test(path);
    const vonage = path === '/sms/json';
    res.setHeader('content-type', 'application/json');
    if (!twilio && !vonage) {
      res.writeHead(404).end(JSON.stringify({ message: 'not found' }));
      return;
    }
    if (twilio && this.twilioAuthToken !== null && basic.slice(basic.indexOf(':') + 1) !== this.twilioAuthToken) {
      res.writeHead(401).end(JSON.stringify({ code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 }));
      return;
    }
    this.messages.push({ provider: twilio ? 'twilio' : 'vonage', path, basic, form });
    const failing = this.failures > 0;
    if (failing) this.failures -= 1;
    if (twilio) {
      if (failing) {
        res.writeHead(400).end(JSON.stringify({ code: 21211, message: "The 'To' number is not a valid phone number.", more_info: 'https://www.twilio.com/docs/errors/21211', status: 400 }));
        return;
      }
      res.writeHead(201).end(JSON.stringify({ sid: `SM${this.messages.length}`, status: 'queued', to: form.To, from: form.From, body: form.Body }));
      return;
    }
    const message = failing
      ? { status: '2', 'error-text': 'Missing to param', 'message-id': '' }
      : { status: '0', 'message-id': `vonage-${this.messages.length}`, to: form.to };
    res.writeHead(200).end(JSON.stringify({ 'message-count': '1', messages: [message] }));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
