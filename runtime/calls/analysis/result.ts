import type { AudioDescription } from '../audio/pcm-block.js';
import type { Transcript } from '../transcript/transcript.js';
import type { FrameLevels } from './frame-accumulator.js';
import type { AnalyzerOptions } from './options.js';
import { coverage, countInterruptions, countTurns, longest, segmentsOf, type Segment } from './timeline.js';
import { detectVoiceActivity, framesOf, meanSquareToDbfs, SILENCE_FLOOR_DBFS } from './vad.js';

export const ANALYZER_NAMES = { silero: 'silero-vad', energy: 'energy-vad' } as const;
export const ANALYZER_VERSION = 1;

export type ChannelRole = 'operator' | 'customer' | 'mixed' | `channel_${number}`;

export interface ChannelTalk {
  readonly channel: number;
  readonly role: ChannelRole;
  readonly talk_s: number;
  /** Share of the recording's duration. */
  readonly talk_ratio: number;
  readonly segments: number;
  readonly longest_monologue_s: number;
}

export interface ChannelLevels {
  readonly channel: number;
  /** null: the channel is digital silence. */
  readonly rms_dbfs: number | null;
  /** RMS over the frames counted as talk; null when the channel never talks. */
  readonly active_rms_dbfs: number | null;
  readonly peak_dbfs: number | null;
  readonly clipped_samples: number;
  readonly clipping_ratio: number;
  readonly noise_floor_dbfs: number;
  readonly vad_threshold_dbfs: number;
}

/**
 * The analysis of one recording, in the JSON shape the API returns. Times in seconds (rounded to
 * the millisecond), levels in dBFS (0.01 dB), ratios to 4 decimals. Stereo: channel 0 is the
 * operator, channel 1 the customer. Mono: one `mixed` channel, and the fields that need two
 * speakers (`talk_to_listen`, `operator_share`, `overtalk`, `turns`) are null.
 */
export interface CallAnalysis {
  readonly audio: {
    readonly container: AudioDescription['container'];
    readonly codec: string;
    readonly sample_rate_hz: number;
    readonly channels: number;
    readonly duration_s: number;
  };
  readonly channel_roles: readonly ChannelRole[];
  readonly talk: {
    readonly per_channel: readonly ChannelTalk[];
    readonly operator_s: number | null;
    readonly customer_s: number | null;
    /** operator talk / customer talk; null when mono or the customer never talks. */
    readonly talk_to_listen: number | null;
    /** operator talk / (operator + customer talk). */
    readonly operator_share: number | null;
  };
  readonly silence: {
    readonly total_s: number;
    readonly ratio: number;
    readonly longest_s: number;
    /** null when there is no silence at all. */
    readonly longest_start_s: number | null;
  };
  readonly overtalk: { readonly total_s: number; readonly ratio: number } | null;
  readonly turns: {
    readonly count: number;
    readonly speaker_switches: number;
    readonly interruptions: number;
    /** Interruptions made by each channel (the interrupter), by channel index. */
    readonly interruptions_by_channel: readonly number[];
  } | null;
  readonly levels: readonly ChannelLevels[];
  /** `[start_s, end_s]` talk segments per channel, capped at `maxSegmentsPerChannel` each. */
  readonly segments: readonly (readonly (readonly [number, number])[])[];
  readonly segments_truncated: boolean;
  readonly analyzer: {
    readonly name: string;
    readonly version: number;
    readonly frame_ms: number;
    readonly absolute_threshold_dbfs: number;
    readonly noise_margin_db: number;
    readonly max_threshold_dbfs: number;
    readonly crosstalk_db: number;
    readonly min_gap_ms: number;
    readonly min_speech_ms: number;
    readonly interruption_window_ms: number;
    readonly clip_threshold: number;
  };
  /** Present when the call was analysed with a speech request (every call the API analyses). */
  readonly transcript?: Transcript;
}

const round = (value: number, digits: number): number => {
  const scale = 10 ** digits;
  // `|| 0` turns -0 (e.g. a peak a hair below full scale) into 0, so JSON and equality stay plain.
  return Math.round(value * scale) / scale || 0;
};
const seconds = (samples: number, rate: number): number => round(samples / rate, 3);
const ratio = (part: number, whole: number): number => (whole > 0 ? round(part / whole, 4) : 0);
const db = (value: number): number => round(value, 2);

function rolesFor(channels: number): ChannelRole[] {
  if (channels === 1) return ['mixed'];
  return Array.from({ length: channels }, (_, c): ChannelRole => (c === 0 ? 'operator' : c === 1 ? 'customer' : `channel_${c}`));
}

/**
 * Turns per-frame energies (and, with the Silero VAD, its speech segments per channel) into the
 * call metrics. Pure: same input, same output.
 */
export function buildCallAnalysis(
  levels: FrameLevels,
  description: AudioDescription,
  options: AnalyzerOptions,
  speechSegments?: readonly (readonly (readonly [number, number])[])[],
): CallAnalysis {
  const { sampleRate: rate, frameSamples, frameCount, totalSamples } = levels;
  const channels = levels.meanSquares.length;
  const startSample = (frame: number): number => Math.min(frame * frameSamples, totalSamples);
  const spanSamples = (start: number, end: number): number => startSample(end) - startSample(start);
  const segmentSamples = (s: Segment): number => spanSamples(s.start, s.end);
  const countSamples = (mask: Uint8Array): number => {
    let samples = 0;
    for (let f = 0; f < frameCount; f++) if (mask[f]) samples += levels.frameLengths(f);
    return samples;
  };

  const speech = speechSegments?.map((segments) => framesOf(segments, frameCount, options.frameMs));
  const vad = detectVoiceActivity(levels.meanSquares, options, speech);
  const segments = vad.map((channel, c) => segmentsOf(channel.active, c));
  const talkSamples = vad.map((channel) => countSamples(channel.active));
  const roles = rolesFor(channels);
  const { silenceFrames, overtalkFrames } = coverage(
    vad.map((channel) => channel.active),
    frameCount,
  );
  const silenceRuns = segmentsOf(silenceFrames, -1);
  const longestSilence = longest(silenceRuns, segmentSamples);
  const silenceSamples = countSamples(silenceFrames);
  const twoSpeakers = channels >= 2;
  const operator = twoSpeakers ? talkSamples[0]! : null;
  const customer = twoSpeakers ? talkSamples[1]! : null;
  const interruptions = countInterruptions(segments, Math.round(options.interruptionWindowMs / options.frameMs));
  const turnCount = countTurns(segments);
  const maxSegments = options.maxSegmentsPerChannel;

  return {
    audio: {
      container: description.container,
      codec: description.codec,
      sample_rate_hz: rate,
      channels,
      duration_s: seconds(totalSamples, rate),
    },
    channel_roles: roles,
    talk: {
      per_channel: segments.map((own, c) => ({
        channel: c,
        role: roles[c]!,
        talk_s: seconds(talkSamples[c]!, rate),
        talk_ratio: ratio(talkSamples[c]!, totalSamples),
        segments: own.length,
        longest_monologue_s: seconds(own.length ? segmentSamples(longest(own, segmentSamples)!) : 0, rate),
      })),
      operator_s: operator === null ? null : seconds(operator, rate),
      customer_s: customer === null ? null : seconds(customer, rate),
      talk_to_listen: operator !== null && customer ? round(operator / customer, 4) : null,
      operator_share: operator !== null && customer !== null && operator + customer > 0 ? ratio(operator, operator + customer) : null,
    },
    silence: {
      total_s: seconds(silenceSamples, rate),
      ratio: ratio(silenceSamples, totalSamples),
      longest_s: seconds(longestSilence ? segmentSamples(longestSilence) : 0, rate),
      longest_start_s: longestSilence ? seconds(startSample(longestSilence.start), rate) : null,
    },
    overtalk: twoSpeakers
      ? { total_s: seconds(countSamples(overtalkFrames), rate), ratio: ratio(countSamples(overtalkFrames), totalSamples) }
      : null,
    turns: twoSpeakers
      ? {
          count: turnCount,
          speaker_switches: Math.max(0, turnCount - 1),
          interruptions: interruptions.reduce((a, b) => a + b, 0),
          interruptions_by_channel: interruptions,
        }
      : null,
    levels: levels.totals.map((totals, c) => {
      const active = vad[c]!.active;
      let activeEnergy = 0;
      for (let f = 0; f < frameCount; f++) if (active[f]) activeEnergy += levels.meanSquares[c]![f]! * levels.frameLengths(f);
      const dbOrNull = (meanSquare: number): number | null =>
        meanSquare > 0 && meanSquareToDbfs(meanSquare) > SILENCE_FLOOR_DBFS ? db(meanSquareToDbfs(meanSquare)) : null;
      return {
        channel: c,
        rms_dbfs: dbOrNull(totals.sumSquares / totalSamples),
        active_rms_dbfs: talkSamples[c]! > 0 ? dbOrNull(activeEnergy / talkSamples[c]!) : null,
        peak_dbfs: totals.peak > 0 ? db(20 * Math.log10(totals.peak)) : null,
        clipped_samples: totals.clippedSamples,
        clipping_ratio: ratio(totals.clippedSamples, totalSamples),
        noise_floor_dbfs: db(vad[c]!.noiseFloorDbfs),
        vad_threshold_dbfs: db(vad[c]!.thresholdDbfs),
      };
    }),
    segments: segments.map((own) =>
      own.slice(0, maxSegments).map((s): [number, number] => [seconds(startSample(s.start), rate), seconds(startSample(s.end), rate)]),
    ),
    segments_truncated: segments.some((own) => own.length > maxSegments),
    analyzer: {
      name: speech ? ANALYZER_NAMES.silero : ANALYZER_NAMES.energy,
      version: ANALYZER_VERSION,
      frame_ms: options.frameMs,
      absolute_threshold_dbfs: options.absoluteThresholdDbfs,
      noise_margin_db: options.noiseMarginDb,
      max_threshold_dbfs: options.maxThresholdDbfs,
      crosstalk_db: options.crosstalkDb,
      min_gap_ms: options.minGapMs,
      min_speech_ms: options.minSpeechMs,
      interruption_window_ms: options.interruptionWindowMs,
      clip_threshold: options.clipThreshold,
    },
  };
}
