import { guardedRequest, readBody, type GuardOptions } from '../../outbound/guarded-request.js';
import type { SmsSettings } from '../../settings/sms-settings.js';

/** GoTrue's message channels: WhatsApp only through Twilio (or any channel through the send-SMS hook). */
export type SmsChannel = 'sms' | 'whatsapp';

export interface OutgoingSms {
  /** E.164 digits without "+". */
  readonly phone: string;
  readonly message: string;
  readonly channel: SmsChannel;
}

/** The provider refused the message or could not be reached; GoTrue answers 422 sms_send_failed with it. */
export class SmsSendError extends Error {
  readonly code = 'sms_send_failed';
}

/** GoTrue's defaultTimeout for SMS provider calls. */
const SEND_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 64 * 1024;

/** GoTrue's generateSMSFromTemplate for the one variable it has. */
export function renderSmsTemplate(template: string, code: string): string {
  return template.replace(/\{\{\s*\.Code\s*\}\}/g, code);
}

interface ProviderAnswer {
  readonly status: number;
  readonly json: unknown;
}

async function postForm(url: string, form: URLSearchParams, headers: Readonly<Record<string, string>>, guard: GuardOptions): Promise<ProviderAnswer> {
  const body = form.toString();
  const signal = AbortSignal.timeout(SEND_TIMEOUT_MS);
  let response: Awaited<ReturnType<typeof guardedRequest>>;
  try {
    response = await guardedRequest(
      new URL(url),
      { method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'accept-encoding': 'identity' }, body, signal },
      { ...guard, connectTimeoutMs: SEND_TIMEOUT_MS, headersTimeoutMs: SEND_TIMEOUT_MS, bodyTimeoutMs: SEND_TIMEOUT_MS },
    );
  } catch (error) {
    throw new SmsSendError((error as Error).message);
  }
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of readBody(response.body, { bodyTimeoutMs: SEND_TIMEOUT_MS })) {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) {
      response.body.destroy();
      throw new SmsSendError('provider answer too large');
    }
    parts.push(chunk);
  }
  try {
    return { status: response.statusCode, json: JSON.parse(Buffer.concat(parts).toString('utf8')) as unknown };
  } catch {
    throw new SmsSendError(`provider answered ${response.statusCode} without JSON`);
  }
}

function field(json: unknown, name: string): string {
  const value = typeof json === 'object' && json !== null ? (json as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

/** Twilio's Programmable Messaging API, as GoTrue's TwilioProvider calls it; the message SID. */
async function sendTwilio(sms: SmsSettings, authToken: string, out: OutgoingSms, guard: GuardOptions): Promise<string> {
  const { account_sid: sid, message_service_sid: sender, base_url: base } = sms.twilio;
  const whatsapp = out.channel === 'whatsapp';
  const from = whatsapp && /^[1-9][0-9]{1,14}$/.test(sender.replace(/^\+/, '').replaceAll(' ', '')) ? `whatsapp:${sender}` : sender;
  const form = new URLSearchParams({ To: `${whatsapp ? 'whatsapp:' : ''}+${out.phone}`, Channel: out.channel, From: from, Body: out.message });
  const basic = Buffer.from(`${sid}:${authToken}`).toString('base64');
  const answer = await postForm(`${base}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`, form, { authorization: `Basic ${basic}` }, guard);
  if (answer.status !== 200 && answer.status !== 201) {
    throw new SmsSendError(`${field(answer.json, 'message')} More information: ${field(answer.json, 'more_info')}`);
  }
  const status = field(answer.json, 'status');
  const messageSid = field(answer.json, 'sid');
  if (status === 'failed' || status === 'undelivered') {
    throw new SmsSendError(`twilio error: ${field(answer.json, 'error_message')} ${field(answer.json, 'error_code')} for message ${messageSid}`);
  }
  return messageSid;
}

/** Vonage's SMS API, as GoTrue's VonageProvider calls it; the message id. */
async function sendVonage(sms: SmsSettings, apiSecret: string, out: OutgoingSms, guard: GuardOptions): Promise<string> {
  if (out.channel !== 'sms') throw new SmsSendError(`channel type "${out.channel}" is not supported for Vonage`);
  const form = new URLSearchParams({ from: sms.vonage.from, to: out.phone, text: out.message, api_key: sms.vonage.api_key, api_secret: apiSecret });
  if (![...out.message].every((char) => char.charCodeAt(0) < 0x80)) form.set('type', 'unicode');
  const answer = await postForm(`${sms.vonage.base_url}/sms/json`, form, {}, guard);
  const messages = typeof answer.json === 'object' && answer.json !== null ? (answer.json as { messages?: unknown }).messages : undefined;
  const first: unknown = Array.isArray(messages) ? messages[0] : undefined;
  if (first === undefined) throw new SmsSendError('vonage error: Internal Error');
  if (field(first, 'status') !== '0') {
    throw new SmsSendError(`vonage error: ${field(first, 'error-text')} (status: ${field(first, 'status')}) for message ${field(first, 'message-id')}`);
  }
  return field(first, 'message-id');
}

/** Sends through the project's provider; `secret` is its opened credential (Twilio's auth token, Vonage's API secret). */
export async function sendThroughProvider(sms: SmsSettings, secret: string, out: OutgoingSms, guard: GuardOptions): Promise<string> {
  if (sms.provider === 'twilio') return sendTwilio(sms, secret, out, guard);
  if (sms.provider === 'vonage') return sendVonage(sms, secret, out, guard);
  throw new SmsSendError(`sms Provider ${sms.provider} could not be found`);
}
