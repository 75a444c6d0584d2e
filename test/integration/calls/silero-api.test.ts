import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingDialogueTools, SUPPORT_DIALOGUE, synthesizeDialogue } from '../../helpers/calls/spoken-dialogue.js';
import { encodeWav } from '../../helpers/calls/wav-writer.js';
import { callsEnv, startCallsHarness, type CallsHarness } from '../../helpers/calls/harness.js';
import { startRecordingServer } from '../../helpers/calls/recordings.js';

const missing = missingDialogueTools();

describe.skipIf(missing !== null)(`the API's talk metrics come from Silero VAD (CALLS_VAD unset)${missing ? `: ${missing}` : ''}`, () => {
  let h: CallsHarness;
  let rec: Awaited<ReturnType<typeof startRecordingServer>>;
  const dialogue = missing ? null : synthesizeDialogue(SUPPORT_DIALOGUE, { layout: 'stereo', band: 'telephone', noiseDbfs: -60 });

  beforeAll(async () => {
    const { CALLS_VAD: _energy, ...env } = callsEnv();
    h = await startCallsHarness(env);
    rec = await startRecordingServer({ '/spoken.wav': encodeWav(dialogue!.channels, dialogue!.sampleRate, 's16') });
  });
  afterAll(async () => {
    await h?.close();
    await rec?.close();
  });

  it('a spoken stereo telephone call: silero-vad, talk time within 0.5 s of the placed turns, 9 turns', async () => {
    const { key } = await h.newTenant();
    const submitted = await h.request('POST', '/v1/calls/analyze', { key, body: { audio_url: `${rec.url}/spoken.wav`, language: 'en-US', operator_id: 'agent-1' } });
    expect(submitted.status).toBe(202);
    const call = await h.waitForCall(key, submitted.body.id);
    expect(call.body.status).toBe('completed');
    const { result } = call.body;
    expect(result.analyzer.name).toBe('silero-vad');
    const truth = [0, 1].map((speaker) => dialogue!.turns.filter((t) => t.speaker === speaker).reduce((sum, t) => sum + t.end - t.start, 0));
    expect(Math.abs(result.talk.operator_s - truth[0]!)).toBeLessThan(0.5);
    expect(Math.abs(result.talk.customer_s - truth[1]!)).toBeLessThan(0.5);
    expect(result.turns.count).toBe(9);
  });
});
