import { afterAll, describe, expect, it } from 'vitest';
import { AudioError } from '../../../runtime/calls/audio/errors.js';
import { AnalysisPool } from '../../../runtime/calls/jobs/analysis-pool.js';
import { expectReferenceTimings } from '../../helpers/calls/reference.js';
import { chunked, referenceCall, synthesize, TONE_ANALYSIS } from '../../helpers/calls/synth.js';
import { encodeWav } from '../../helpers/calls/wav-writer.js';

const wav = encodeWav(synthesize(referenceCall(8000)), 8000, 's16');
const pool = new AnalysisPool();
afterAll(() => pool.close());

describe('analysis in worker threads', () => {
  it('gives the same answers as analysing on the main thread, for several recordings at once', async () => {
    const results = await Promise.all([0, 1, 2].map(() => pool.analyze(chunked(wav, [4096, 777]), TONE_ANALYSIS)));
    for (const result of results) expectReferenceTimings(result, 0);
  });

  it('decoder errors come back as AudioError with their code, and the worker stays usable', async () => {
    const html = new TextEncoder().encode('<html>'.repeat(100));
    const failure = await pool.analyze(chunked(html), TONE_ANALYSIS).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AudioError);
    expect((failure as AudioError).code).toBe('unsupported_audio_format');
    const tooLong = await pool.analyze(chunked(wav), { ...TONE_ANALYSIS, maxDurationSeconds: 5 }).catch((error: unknown) => error);
    expect((tooLong as AudioError).code).toBe('audio_too_long');
    expectReferenceTimings(await pool.analyze(chunked(wav), TONE_ANALYSIS), 0);
  });

  it('a source failing mid-stream rejects with its own error; the next analysis gets a fresh worker', async () => {
    async function* broken(): AsyncGenerator<Uint8Array> {
      yield wav.subarray(0, 100_000);
      throw new Error('connection reset');
    }
    await expect(pool.analyze(broken(), TONE_ANALYSIS)).rejects.toThrow('connection reset');
    expectReferenceTimings(await pool.analyze(chunked(wav), TONE_ANALYSIS), 0);
  });
});
