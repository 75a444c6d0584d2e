import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { guardedRequest, readBody, type GuardOptions } from '../../outbound/guarded-request.js';
import { webhookHeaders } from '../../outbound/webhook-signing.js';
import { AuthError } from '../http/errors.js';
import { hookError } from './hook-output.js';

/** GoTrue's hookshttp defaults: 5 s for all attempts together, 3 attempts 2 s apart, 200 KB of answer. */
export interface HttpHookLimits {
  readonly timeoutMs: number;
  readonly attempts: number;
  readonly backoffMs: number;
  readonly maxResponseBytes: number;
}

export const HTTP_HOOK_LIMITS: HttpHookLimits = { timeoutMs: 5000, attempts: 3, backoffMs: 2000, maxResponseBytes: 200 * 1024 };

/**
 * GoTrue lets `http:` reach only this machine (its settings refuse other hosts) and `https:`
 * anywhere; through the SSRF guard that is loopback for http, public addresses for https.
 */
export function hookAddressPolicy(uri: string): GuardOptions {
  return new URL(uri).protocol === 'http:' ? { allowPrivate: false, allowCidrs: ['127.0.0.0/8', '::1/128'] } : { allowPrivate: false };
}

function timeoutError(limits: HttpHookLimits): AuthError {
  return new AuthError(422, 'hook_timeout', `Failed to reach hook within maximum time of ${(limits.timeoutMs / 1000).toFixed(6)} seconds`);
}

async function readLimited(response: Awaited<ReturnType<typeof guardedRequest>>, limits: HttpHookLimits): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of readBody(response.body, { bodyTimeoutMs: limits.timeoutMs })) {
    parts.push(chunk);
    size += chunk.length;
    if (size > limits.maxResponseBytes) {
      throw new AuthError(422, 'hook_payload_over_size_limit', `Payload size exceeded size limit of ${limits.maxResponseBytes} bytes`);
    }
  }
  return Buffer.concat(parts);
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw hookError(500, 'Error unmarshaling JSON output.');
  }
}

/**
 * POSTs the input, signed with Standard Webhooks (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) by every `v1,whsec_` secret, and answers as GoTrue's hookshttp: 204 is
 * no output, 200/202 must be JSON, other statuses and unreachable hooks are GoTrue's errors.
 */
export async function callHttpHook(
  uri: string,
  secrets: readonly string[],
  input: unknown,
  limits: HttpHookLimits = HTTP_HOOK_LIMITS,
): Promise<unknown> {
  const payload = JSON.stringify(input);
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const policy = hookAddressPolicy(uri);
  for (let attempt = 0; attempt < limits.attempts; attempt += 1) {
    const headers = webhookHeaders(secrets.map((secret) => secret.slice('v1,'.length)), randomUUID(), Math.floor(Date.now() / 1000), payload);
    let response: Awaited<ReturnType<typeof guardedRequest>>;
    try {
      response = await guardedRequest(
        new URL(uri),
        { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'accept-encoding': 'identity' }, body: payload, signal: deadline },
        { ...policy, connectTimeoutMs: limits.timeoutMs, headersTimeoutMs: limits.timeoutMs },
      );
    } catch {
      if (deadline.aborted) throw timeoutError(limits);
      if (attempt < limits.attempts - 1) {
        await sleep(limits.backoffMs, undefined, { signal: deadline }).catch(() => undefined);
        if (deadline.aborted) throw timeoutError(limits);
        continue;
      }
      throw new AuthError(422, 'hook_timeout_after_retry', 'Failed to reach hook after maximum retries');
    }
    const status = response.statusCode;
    if (status === 204) {
      response.body.destroy();
      return null;
    }
    if (status === 200 || status === 202) {
      const contentType = response.headers['content-type'];
      if (contentType === undefined || contentType === '') {
        response.body.destroy();
        throw new AuthError(400, 'hook_payload_invalid_content_type', 'Invalid Content-Type: Missing Content-Type header');
      }
      if (contentType.split(';')[0]!.trim().toLowerCase() !== 'application/json') {
        response.body.destroy();
        throw new AuthError(400, 'hook_payload_invalid_content_type', `Invalid JSON response. Received content-type: ${contentType}`);
      }
      return parseJson(await readLimited(response, limits));
    }
    response.body.destroy();
    if (status === 429 || status === 503) {
      if (response.headers['retry-after'] !== undefined) continue;
      throw hookError(500, 'Service currently unavailable due to hook');
    }
    if (status === 400) throw hookError(500, 'Invalid payload sent to hook');
    if (status === 401) throw hookError(500, 'Hook requires authorization token');
    throw hookError(500, `Unexpected status code returned from hook: ${status}`);
  }
  throw hookError(500, 'Service currently unavailable due to hook');
}
