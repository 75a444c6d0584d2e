import { describe, expect, it } from 'vitest';
import { analyzeRecording } from '../../../runtime/calls/analysis/analyze.js';
import type { CompletedTranscript } from '../../../runtime/calls/transcript/transcript.js';
import { CUSTOMER_VOICE, DIALOGUE, dialogue, FIXTURE_RATE, missingSpeechTools, OPERATOR_VOICE, wordErrorRate } from '../../helpers/calls/speech-fixtures.js';
import { chunked } from '../../helpers/calls/synth.js';
import { encodeWav } from '../../helpers/calls/wav-writer.js';


const missing = missingSpeechTools();
const POCKETSPHINX = [{ kind: 'pocketsphinx' as const }];

describe(missing ?? 'PocketSphinx on an espeak-ng dialogue', () => {
  it.skipIf(missing !== null)('stereo: each channel transcribed as its speaker, WER <= 0.65, every word inside its line +-0.5 s', async () => {
    const { channels, placed } = dialogue(DIALOGUE, [OPERATOR_VOICE, CUSTOMER_VOICE], { stereo: true, gapS: 1 });
    const wav = encodeWav(channels, FIXTURE_RATE, 's16');
    const result = await analyzeRecording(chunked(wav), { speech: { language: 'en-US', engines: POCKETSPHINX } });
    const transcript = result.transcript as CompletedTranscript;
    expect(transcript).toMatchObject({ status: 'completed', engine: 'pocketsphinx', language: 'en-US', separation: { method: 'channel', confidence: 1 } });
    expect(transcript.speakers).toEqual([
      { id: 'operator', label: 'Operator', channel: 0 },
      { id: 'customer', label: 'Customer', channel: 1 },
    ]);
    const words = transcript.utterances.flatMap((u) => u.words);
    for (const speaker of ['operator', 'customer'] as const) {
      const reference = placed.filter((l) => l.speaker === (speaker === 'operator' ? 0 : 1)).map((l) => l.text).join(' ');
      const heard = words.filter((w) => w.speaker === speaker).map((w) => w.text).join(' ');
      const wer = wordErrorRate(reference, heard);
      console.log(`${speaker}: WER ${wer.toFixed(2)}: ${heard}`);
      expect(wer).toBeLessThanOrEqual(0.65);
    }
    for (const word of words) {
      const inside = placed.some((l) => (l.speaker === 0 ? 'operator' : 'customer') === word.speaker && word.start >= l.start - 0.5 && word.end <= l.end + 0.5);
      expect(inside, `${word.speaker} "${word.text}" at ${word.start}-${word.end}`).toBe(true);
      expect(word.confidence).toBeGreaterThanOrEqual(0);
      expect(word.confidence).toBeLessThanOrEqual(1);
    }
    for (const utterance of transcript.utterances) expect(utterance.text).toBe(utterance.words.map((w) => w.text).join(' '));
    expect(result.talk.operator_s).toBeGreaterThan(5);
  }, 300_000);

  it.skipIf(missing !== null)('a language the engine lacks: signal metrics, and the transcript unavailable with the reason', async () => {
    const { channels } = dialogue(DIALOGUE.slice(0, 2), [OPERATOR_VOICE, CUSTOMER_VOICE], { stereo: true, gapS: 0.5 });
    const result = await analyzeRecording(chunked(encodeWav(channels, FIXTURE_RATE, 's16')), { speech: { language: 'de-DE', engines: POCKETSPHINX } });
    expect(result.transcript).toEqual({ status: 'unavailable', reason: 'no configured speech engine serves de-DE (pocketsphinx: en)', language: 'de-DE' });
    expect(result.talk.operator_s).toBeGreaterThan(2);
    expect(result.talk.customer_s).toBeGreaterThan(2);
  }, 300_000);

  it.skipIf(missing !== null)('mono, two voices apart in pitch: two speakers, each word given to the voice that said it', async () => {
    const { channels, placed } = dialogue(DIALOGUE, [OPERATOR_VOICE, CUSTOMER_VOICE], { stereo: false, gapS: 0.8 });
    const result = await analyzeRecording(chunked(encodeWav(channels, FIXTURE_RATE, 's16')), { speech: { language: 'en', engines: POCKETSPHINX } });
    const transcript = result.transcript as CompletedTranscript;
    expect(transcript.separation.method).toBe('pitch');
    expect(transcript.separation.confidence).toBeGreaterThanOrEqual(0.5);
    expect(transcript.speakers.map((s) => s.id)).toEqual(['speaker_1', 'speaker_2']);
    const words = transcript.utterances.flatMap((u) => u.words);
    const right = words.filter((w) => {
      const line = placed.find((l) => (w.start + w.end) / 2 >= l.start - 0.3 && (w.start + w.end) / 2 <= l.end + 0.3);
      return line && w.speaker === (line.speaker === 0 ? 'speaker_1' : 'speaker_2');
    });
    console.log(`mono split: confidence ${transcript.separation.confidence}, ${right.length}/${words.length} words to the right voice`);
    expect(right.length / words.length).toBeGreaterThanOrEqual(0.9);
  }, 300_000);

  it.skipIf(missing !== null)('mono, one voice for both parts: one speaker, with the low confidence that decided it', async () => {
    const { channels } = dialogue(DIALOGUE, [OPERATOR_VOICE, OPERATOR_VOICE], { stereo: false, gapS: 0.8 });
    const result = await analyzeRecording(chunked(encodeWav(channels, FIXTURE_RATE, 's16')), { speech: { language: 'en', engines: POCKETSPHINX } });
    const transcript = result.transcript as CompletedTranscript;
    console.log(`same voice: confidence ${transcript.separation.confidence}`);
    expect(transcript.separation.confidence).toBeLessThan(0.5);
    expect(transcript.speakers).toEqual([{ id: 'speaker_1', label: 'Speaker 1', confidence: transcript.separation.confidence }]);
    expect(new Set(transcript.utterances.map((u) => u.speaker))).toEqual(new Set(['speaker_1']));
  }, 300_000);
});

describe('no engine', () => {
  it('no engine configured: the transcript says so, the metrics are there', async () => {
    const { referenceCall, synthesize, TONE_ANALYSIS } = await import('../../helpers/calls/synth.js');
    const wav = encodeWav(synthesize(referenceCall()), 8000, 's16');
    const result = await analyzeRecording(chunked(wav), { ...TONE_ANALYSIS, speech: { language: 'en-US', engines: [] } });
    expect(result.transcript).toEqual({ status: 'unavailable', reason: 'no speech engine is configured (CALLS_SPEECH_ENGINES, /v1/speech/settings)', language: 'en-US' });
    expect(result.talk.operator_s).toBe(7);
  });
});
