/**
 * The two VADs of the signal metrics compared (`analyzer.vad`): the energy VAD and Silero VAD
 * (run by sherpa-onnx-node on the model Gantry ships (runtime/calls/analysis/silero/), behind the same energy gate),
 * on a synthesized support call (espeak-ng + sox) whose turns are placed at known times. For each
 * fixture it prints frame precision/recall of speech, turns found and pauses found (see
 * test/unit/calls/helpers/vad-scoring.ts), then the real-time factor of the whole analysis
 * (compute seconds per second of audio) with each, on the call repeated to `--minutes` (default 10).
 *
 *   node --import tsx bench/vad.ts [--minutes 10]
 */
import { analyzeRecording } from '../runtime/calls/analysis/analyze.js';
import type { VadKind } from '../runtime/calls/analysis/options.js';
import { missingDialogueTools, SUPPORT_DIALOGUE, synthesizeDialogue, type DialogueOptions, type SpokenDialogue } from '../test/helpers/calls/spoken-dialogue.js';
import { chunked } from '../test/helpers/calls/synth.js';
import { scoreVad, type ChannelSegments } from '../test/helpers/calls/vad-scoring.js';
import { encodeWav } from '../test/helpers/calls/wav-writer.js';

const args = process.argv.slice(2);
const minutesAt = args.indexOf('--minutes');
const minutes = minutesAt >= 0 ? Number(args[minutesAt + 1]) : 10;

const missing = missingDialogueTools();
if (missing) {
  console.error(missing);
  process.exit(1);
}

async function segments(dialogue: SpokenDialogue, vad: VadKind): Promise<ChannelSegments> {
  const wav = encodeWav(dialogue.channels, dialogue.sampleRate, 's16');
  return (await analyzeRecording(chunked(wav), { analyzer: { vad } })).segments;
}

const FIXTURES: readonly (DialogueOptions & { readonly name: string })[] = [
  { name: 'stereo 16 kHz', layout: 'stereo', band: 'wideband', noiseDbfs: -60 },
  { name: 'mono 16 kHz', layout: 'mono', band: 'wideband', noiseDbfs: -60 },
  { name: 'telephone stereo 8 kHz', layout: 'stereo', band: 'telephone', noiseDbfs: -60 },
  { name: 'telephone mono 8 kHz', layout: 'mono', band: 'telephone', noiseDbfs: -60 },
  { name: 'telephone mono, noise -35 dBFS', layout: 'mono', band: 'telephone', noiseDbfs: -35 },
];

console.log('| fixture | detector | precision | recall | turns found | pauses found |');
console.log('|---|---|---|---|---|---|');
for (const fixture of FIXTURES) {
  const dialogue = synthesizeDialogue(SUPPORT_DIALOGUE, fixture);
  for (const vad of ['energy', 'silero'] as const) {
    const s = scoreVad(dialogue.turns, await segments(dialogue, vad), dialogue.duration);
    console.log(`| ${fixture.name} | ${vad} | ${s.precision.toFixed(3)} | ${s.recall.toFixed(3)} | ${s.turnsFound}/${s.turns} | ${s.pausesFound}/${s.pauses} |`);
  }
}

const base = synthesizeDialogue(SUPPORT_DIALOGUE, { layout: 'mono', band: 'telephone', noiseDbfs: -60 });
const repeats = Math.max(1, Math.round((minutes * 60) / base.duration));
const long = new Float32Array(base.channels[0]!.length * repeats);
for (let r = 0; r < repeats; r++) long.set(base.channels[0]!, r * base.channels[0]!.length);
const seconds = long.length / base.sampleRate;
const wav = encodeWav([long], base.sampleRate, 's16');
const rtf: Record<VadKind, number> = { energy: 0, silero: 0 };
for (const vad of ['energy', 'silero'] as const) {
  const started = process.hrtime.bigint();
  await analyzeRecording(chunked(wav), { analyzer: { vad } });
  rtf[vad] = Number(process.hrtime.bigint() - started) / 1e9 / seconds;
}
console.log(`\nreal-time factor of the whole analysis (decoding included) on ${(seconds / 60).toFixed(1)} min of 8 kHz mono, one core:`);
console.log(`energy ${rtf.energy.toFixed(5)}  silero ${rtf.silero.toFixed(5)}`);
