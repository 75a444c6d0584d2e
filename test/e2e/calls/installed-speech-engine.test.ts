import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../runtime/calls/keys.js';
import { startTestHost, type TestHost } from '../../helpers/platform.js';
import { callsEnv, dropQueueSchema } from '../../helpers/calls/harness.js';
import { startRecordingServer } from '../../helpers/calls/recordings.js';
import { CUSTOMER_VOICE, DIALOGUE, dialogue, FIXTURE_RATE, missingSpeechTools, OPERATOR_VOICE } from '../../helpers/calls/speech-fixtures.js';
import { encodeWav } from '../../helpers/calls/wav-writer.js';

/**
 * A deployment that set nothing about speech, on a machine with pocketsphinx and
 * pocketsphinx-en-us installed: English calls get a PocketSphinx transcript, and the calls
 * listener's /health says which engines transcribe and why. `CALLS_SPEECH_ENGINES=none` turns
 * them off.
 */
const missing = missingSpeechTools();
// As a deployment runs: CALLS_SPEECH_ENGINES empty, the process's own PATH.
const env = callsEnv({ CALLS_SPEECH_ENGINES: '', PATH: process.env.PATH ?? '' });
const offEnv = callsEnv({ CALLS_SPEECH_ENGINES: 'none', PATH: process.env.PATH ?? '' });

let host: TestHost;
let off: TestHost;
let rec: Awaited<ReturnType<typeof startRecordingServer>>;

beforeAll(async () => {
  if (missing) return;
  const { channels } = dialogue(DIALOGUE.slice(0, 2), [OPERATOR_VOICE, CUSTOMER_VOICE], { stereo: true, gapS: 1 });
  rec = await startRecordingServer({ '/dialogue.wav': encodeWav(channels, FIXTURE_RATE, 's16') });
  host = await startTestHost(env);
  off = await startTestHost(offEnv);
}, 120_000);
afterAll(async () => {
  await host?.close();
  await off?.close();
  await rec?.close();
  if (!missing) await Promise.all([dropQueueSchema(env.CALLS_QUEUE_SCHEMA!), dropQueueSchema(offEnv.CALLS_QUEUE_SCHEMA!)]);
});

async function api(target: TestHost, method: string, path: string, key: string | null, body?: unknown) {
  const response = await fetch(target.host.apiUrl + path, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  // Tests read whatever field they assert on; the shape is what is under test.
  return { status: response.status, body: (await response.json()) as any };
}

async function analyzed(target: TestHost): Promise<any> {
  const { key } = await createApiKey(target.platform.pool, `tenant_${Date.now().toString(36)}`);
  const submitted = await api(target, 'POST', '/v1/calls/analyze', key, { audio_url: `${rec.url}/dialogue.wav`, language: 'en-US', operator_id: 'anna' });
  expect(submitted.status).toBe(202);
  const until = Date.now() + 280_000;
  for (;;) {
    const call = await api(target, 'GET', `/v1/calls/${submitted.body.id}`, key);
    if (['completed', 'failed'].includes(call.body.status) || Date.now() > until) return call.body;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe(missing ?? 'speech engines when CALLS_SPEECH_ENGINES is empty', () => {
  it.skipIf(missing !== null)('the installed PocketSphinx transcribes an English call; /health names it', async () => {
    const health = await api(host, 'GET', '/health', null);
    expect(health.status).toBe(200);
    expect(health.body.speech).toEqual({ engines: ['pocketsphinx'], chosen_by: 'installed' });

    const call = await analyzed(host);
    expect(call.status).toBe('completed');
    const { transcript } = call.result;
    expect(transcript).toMatchObject({ status: 'completed', engine: 'pocketsphinx', model: 'cmusphinx-en-us (Debian pocketsphinx-en-us)', language: 'en-US' });
    const said = transcript.utterances.map((u: { speaker: string; text: string }) => `${u.speaker}: ${u.text}`).join('\n');
    expect(said).toMatch(/^operator: .*my name is anna/m);
    expect(said).toMatch(/^customer: .*balance/m);
  }, 300_000);

  it.skipIf(missing !== null)('CALLS_SPEECH_ENGINES=none: no transcript, and /health says no engine', async () => {
    expect((await api(off, 'GET', '/health', null)).body.speech).toEqual({ engines: [], chosen_by: 'setting' });
    const call = await analyzed(off);
    expect(call.status).toBe('completed');
    expect(call.result.transcript).toEqual({ status: 'unavailable', reason: 'no speech engine is configured (CALLS_SPEECH_ENGINES, /v1/speech/settings)', language: 'en-US' });
  }, 300_000);
});
