import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { callsEnv, dropQueueSchema, eventually, REFERENCE_WAV, startReceiver } from '../helpers/calls/harness.js';
import { startRecordingServer } from '../helpers/calls/recordings.js';
import { cliOk, installation, jsonObject, removeInstallation, serve, type Installation, type Server } from '../helpers/serve-process.js';
import { request, uniqueRef, type Answer } from '../helpers/blackbox-projects.js';
import { parsePublicId } from '../../runtime/calls/ids.js';

/**
 * The call-analysis API of two hosts on one database, requests alternating between them:
 * an Idempotency-Key means one call whichever host sees it, a call is analysed once by
 * whichever host's worker takes its job, and its webhook is delivered once.
 */

vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

/** Calls made, numbered 0 to CALLS: two by the idempotency test, the rest alternating. */
const CALLS = 6;
/** One recording path per call, so the recording server counts each call's fetches. */
const recordings = Object.fromEntries(Array.from({ length: CALLS + 1 }, (_, i) => [`/call-${i}.wav`, REFERENCE_WAV]));
/** Both hosts share the job queue (one CALLS_QUEUE_SCHEMA), as hosts of one deployment do. */
const env = callsEnv();
const EVENTS = ['call.analysis.completed', 'call.analysis.failed'];

let rec: Awaited<ReturnType<typeof startRecordingServer>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let a: Installation;
let b: Installation;
let hosts: Server[] = [];
let apiKey: string;
let secret: string;

function api(inst: Installation, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return request(`${inst.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** The API's problem+json error body. */
const problem = (status: number, title: string, code: string, detail: string) => ({
  type: `https://gantry.dev/errors/calls/${code}`,
  title,
  status,
  detail,
  code,
  request_id: expect.stringMatching(/^req_[0-9a-f]{24}$/),
});

const submission = (i: number, operator = 'op-1') => ({ audio_url: `${rec.url}/call-${i}.wav`, language: 'en-GB', operator_id: operator });

interface CallBody {
  readonly id: string;
  readonly status: string;
  readonly attempts: number;
  readonly audio_url: string;
  readonly operator_id: string;
  readonly error: unknown;
}

/**
 * Status, analysis runs that did not end in a failure retried, and error of a settled call. Each
 * run counts one attempt; a run whose download failed (a loaded machine resets the test's
 * recording server now and then) is logged as retried by the host that ran it and legitimately
 * runs again, so the attempts beyond those must be exactly one: a second run of a call that was
 * not failing is what two hosts must never do.
 */
function outcome(call: CallBody): [string, number, unknown] {
  const uuid = parsePublicId('call', call.id);
  const retried = hosts
    .flatMap((host) => host.output().split('\n'))
    .filter((line) => line.includes(`"call":"${uuid}"`) && line.includes('"msg":"call analysis failed; it will be retried"')).length;
  return [call.status, call.attempts - retried, call.error];
}

/** Polls the call on alternating hosts until it is completed or failed. */
async function settled(id: string): Promise<CallBody> {
  let turn = 0;
  return eventually(async () => {
    const answer = await api(turn++ % 2 === 0 ? a : b, 'GET', `/v1/calls/${id}`);
    expect(answer.status, answer.text).toBe(200);
    const call = answer.body as CallBody;
    if (call.status !== 'completed' && call.status !== 'failed') return null;
    attempts.set(id, call.attempts);
    return call;
  }, 60_000, `call ${id} analysed`);
}

/** How many times a settled call was analysed, failed runs included. */
const attempts = new Map<string, number>();
const runs = (id: string): number => attempts.get(id) ?? 0;

/** What both hosts logged (warnings and errors), for failure messages. */
const logs = (): string => hosts.map((host, i) => `host ${'AB'[i]}:\n${host.output()}`).join('\n');

/** The events delivered so far, verified with the endpoint's secret: call id and webhook-id of each. */
function deliveries(): { callId: string; type: string; messageId: string }[] {
  return receiver.received.map((hook) => {
    const event = new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>) as { type: string; data: { id: string } };
    return { callId: event.data.id, type: event.type, messageId: String(hook.headers['webhook-id']) };
  });
}

beforeAll(async () => {
  rec = await startRecordingServer(recordings);
  receiver = await startReceiver();
  [a, b] = [await installation({ env }), await installation({ env })];
  hosts = await Promise.all([serve(a), serve(b)]);
  const created = jsonObject(await cliOk(['calls', 'key', 'create', '--tenant', uniqueRef('two-hosts').replaceAll('_', '-'), '--json'], a.env));
  apiKey = String(created.key);
  const endpoint = await api(b, 'POST', '/v1/webhooks', { url: `${receiver.url}/hooks`, events: EVENTS });
  expect(endpoint.status, endpoint.text).toBe(201);
  secret = (endpoint.body as { secret: string }).secret;
});
afterAll(async () => {
  for (const host of hosts) expect(await host.stop(), host.output()).toBe(0);
  for (const inst of [a, b]) if (inst) await removeInstallation(inst);
  await dropQueueSchema(env.CALLS_QUEUE_SCHEMA!);
  await rec?.close();
  await receiver?.close();
});

describe('two hosts, one database: the call-analysis API', () => {
  it('an Idempotency-Key sent to host A then host B makes one call; another body with that key is refused', async () => {
    const headers = { 'Idempotency-Key': 'order-7781' };
    const first = await api(a, 'POST', '/v1/calls/analyze', submission(0), headers);
    expect([first.status, first.headers.get('idempotent-replayed')]).toEqual([202, null]);
    const call = first.body as CallBody;
    expect(call).toMatchObject({ status: 'queued', audio_url: `${rec.url}/call-0.wav`, operator_id: 'op-1' });

    const replay = await api(b, 'POST', '/v1/calls/analyze', submission(0), headers);
    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([202, 'true']);
    expect(replay.body).toMatchObject({ id: call.id, audio_url: call.audio_url, operator_id: 'op-1' });

    const reused = await api(b, 'POST', '/v1/calls/analyze', submission(0, 'op-2'), headers);
    expect([reused.status, reused.body]).toEqual([422, problem(422, 'Unprocessable Content', 'idempotency_key_reused', 'this Idempotency-Key was used with a different request body')]);
    const replayedOnA = await api(a, 'POST', '/v1/calls/analyze', submission(0), headers);
    expect([replayedOnA.status, (replayedOnA.body as CallBody).id]).toEqual([202, call.id]);

    // Sent to both hosts at once: one call; a request that finds the key in use answers 409.
    const racing = await Promise.all([a, b, a, b].map((inst) => api(inst, 'POST', '/v1/calls/analyze', submission(1), { 'Idempotency-Key': 'race-1' })));
    const accepted = racing.filter((answer) => answer.status === 202).map((answer) => (answer.body as CallBody).id);
    expect(accepted.length).toBeGreaterThan(0);
    expect(new Set(accepted).size).toBe(1);
    for (const answer of racing.filter((x) => x.status !== 202)) {
      expect([answer.status, answer.body]).toEqual([
        409,
        problem(409, 'Conflict', 'idempotency_key_in_use', 'a request with this Idempotency-Key is still being processed; retry later'),
      ]);
    }

    for (const id of [call.id, accepted[0]!]) expect(outcome(await settled(id)), logs()).toEqual(['completed', 1, null]);
    // One fetch per run: the recording was fetched once more for each run whose download failed.
    expect([rec.hits.get('/call-0.wav'), rec.hits.get('/call-1.wav')]).toEqual([runs(call.id), runs(accepted[0]!)]);
  });

  it('calls submitted to alternating hosts are each analysed once and their webhook delivered once', async () => {
    const ids: string[] = [];
    for (let i = 2; i <= CALLS; i += 1) {
      const answer = await api(i % 2 === 0 ? a : b, 'POST', '/v1/calls/analyze', submission(i));
      expect(answer.status, answer.text).toBe(202);
      ids.push((answer.body as CallBody).id);
    }
    for (const id of ids) expect(outcome(await settled(id)), logs()).toEqual(['completed', 1, null]);
    for (let i = 2; i <= CALLS; i += 1) expect(rec.hits.get(`/call-${i}.wav`), `fetches of call ${i}'s recording`).toBe(runs(ids[i - 2]!));

    const total = CALLS + 1; // the two calls of the test before, and these
    await eventually(async () => deliveries().length >= total, 30_000, `${total} webhook deliveries`);
    // Both hosts' workers poll twice a second: a second delivery of any event would arrive by now.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const delivered = deliveries();
    expect(delivered.length).toBe(total);
    expect(new Set(delivered.map((d) => d.messageId)).size).toBe(total);
    for (const id of ids) expect(delivered.filter((d) => d.callId === id).map((d) => d.type)).toEqual(['call.analysis.completed']);

    // The delivery log, read on either host, shows one successful attempt each.
    const endpoints = await api(a, 'GET', '/v1/webhooks');
    const endpointId = (endpoints.body as { data: { id: string }[] }).data[0]!.id;
    const log = await api(b, 'GET', `/v1/webhooks/${endpointId}/deliveries`);
    const rows = (log.body as { data: { status: string; attempts: number }[] }).data;
    expect(rows.map((row) => [row.status, row.attempts])).toEqual(Array.from({ length: total }, () => ['succeeded', 1]));
  });
});
