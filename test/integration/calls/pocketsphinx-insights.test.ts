import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_VOICE, DIALOGUE, dialogue, FIXTURE_RATE, missingSpeechTools, OPERATOR_VOICE } from '../../helpers/calls/speech-fixtures.js';
import { encodeWav } from '../../helpers/calls/wav-writer.js';
import { callsEnv, startCallsHarness, type CallsHarness } from '../../helpers/calls/harness.js';
import { startRecordingServer } from '../../helpers/calls/recordings.js';

/**
 * Insight settings and a call's own options over HTTP on a transcript PocketSphinx decoded from
 * the espeak-ng dialogue's first three lines (operator, customer, operator), served as a stereo
 * WAV: what is spotted is what the engine heard, not a scripted answer.
 */
const missing = missingSpeechTools();

let h: CallsHarness;
let rec: Awaited<ReturnType<typeof startRecordingServer>>;

beforeAll(async () => {
  if (missing) return;
  const { channels } = dialogue(DIALOGUE.slice(0, 3), [OPERATOR_VOICE, CUSTOMER_VOICE], { stereo: true, gapS: 1 });
  rec = await startRecordingServer({ '/dialogue.wav': encodeWav(channels, FIXTURE_RATE, 's16') });
  h = await startCallsHarness(callsEnv({ CALLS_SPEECH_ENGINES: 'pocketsphinx', CALLS_VAD: 'silero' }));
});
afterAll(async () => {
  await h?.close();
  await rec?.close();
});

describe(missing ?? 'per-call insight options on a PocketSphinx transcript', () => {
  it.skipIf(missing !== null)('the call’s keyword list and script phrases join the tenant’s; its redaction choice overrides the tenant’s', async () => {
    const { key } = await h.newTenant();
    const tenantSettings = { keyword_lists: [{ name: 'greeting', phrases: ['my name is anna'] }], script: { phrases: ['how can i help you'], speaker: 'operator' }, redact_pii: true };
    expect((await h.request('PUT', '/v1/insights/settings', { key, body: tenantSettings })).status).toBe(200);
    const insight_options = { keyword_lists: [{ name: 'account', phrases: ['balance', 'account number'] }], script: { phrases: ['account number please', 'goodbye'] }, redact_pii: false };
    const submitted = await h.request('POST', '/v1/calls/analyze', { key, body: { audio_url: `${rec.url}/dialogue.wav`, language: 'en-US', operator_id: 'anna', insight_options } });
    expect(submitted.status).toBe(202);
    const done = (await h.waitForCall(key, submitted.body.id, ['completed', 'failed'], 280_000)).body;
    expect(done.status).toBe('completed');
    expect(done.insight_options).toEqual({ mode: 'extend', ...insight_options });
    const { transcript, insights } = done.result;
    expect(transcript).toMatchObject({ status: 'completed', engine: 'pocketsphinx', language: 'en-US' });
    expect(insights.keywords.map((k: { list: string; phrase: string; text: string; speaker: string }) => [k.list, k.phrase, k.text, k.speaker])).toEqual([
      ['greeting', 'my name is anna', 'my name is anna', 'operator'],
      ['account', 'balance', 'balance', 'customer'],
      ['account', 'account number', 'account number', 'operator'],
    ]);
    // "how can i help you" is heard as "how can i tell you": found by the fuzzy match (score 0.89).
    expect(insights.script.phrases.map((p: { phrase: string; found: boolean; speaker: string }) => [p.phrase, p.found, p.speaker])).toEqual([
      ['how can i help you', true, 'operator'],
      ['account number please', true, 'operator'],
      ['goodbye', false, 'operator'],
    ]);
    expect([insights.script.required, insights.script.found]).toEqual([3, 2]);
    // The tenant redacts; this call asked not to, so redaction did not run.
    expect(insights.pii).toEqual({ redacted: false, kinds: [] });
  }, 300_000);
});
