import { describe, expect, it } from 'vitest';
import { analyzeRecording } from '../../../runtime/calls/analysis/analyze.js';
import { chunked, referenceCall, synthesize, TONE_ANALYSIS } from '../../helpers/calls/synth.js';
import { expectReferenceTimings } from '../../helpers/calls/reference.js';
import { asExtensible, encodeWav, type WavEncoding } from '../../helpers/calls/wav-writer.js';

const reference = synthesize(referenceCall(8000));

describe('reference call, every WAV encoding', () => {
  const encodings: WavEncoding[] = ['u8', 's16', 's24', 's32', 'f32', 'f64', 'mulaw', 'alaw'];
  it.each(encodings)('%s gives the exact timings', async (encoding) => {
    const result = await analyzeRecording(chunked(encodeWav(reference, 8000, encoding), [4000, 333]), TONE_ANALYSIS);
    expectReferenceTimings(result, 0);
  });

  it('extensible PCM16 gives the exact timings', async () => {
    expectReferenceTimings(await analyzeRecording(chunked(asExtensible(encodeWav(reference, 8000, 's16'))), TONE_ANALYSIS), 0);
  });

  it('reports the whole result for PCM16', async () => {
    const result = await analyzeRecording(chunked(encodeWav(reference, 8000, 's16')), TONE_ANALYSIS);
    expect(result).toEqual({
      audio: { container: 'wav', codec: 'pcm_s16le', sample_rate_hz: 8000, channels: 2, duration_s: 20 },
      channel_roles: ['operator', 'customer'],
      talk: {
        per_channel: [
          { channel: 0, role: 'operator', talk_s: 7, talk_ratio: 0.35, segments: 3, longest_monologue_s: 3 },
          { channel: 1, role: 'customer', talk_s: 6.5, talk_ratio: 0.325, segments: 3, longest_monologue_s: 3 },
        ],
        operator_s: 7,
        customer_s: 6.5,
        talk_to_listen: 1.0769,
        operator_share: 0.5185,
      },
      silence: { total_s: 7, ratio: 0.35, longest_s: 5, longest_start_s: 9 },
      overtalk: { total_s: 0.5, ratio: 0.025 },
      turns: { count: 6, speaker_switches: 5, interruptions: 1, interruptions_by_channel: [0, 1] },
      levels: [
        { channel: 0, rms_dbfs: -13.59, active_rms_dbfs: -9.03, peak_dbfs: -6.02, clipped_samples: 0, clipping_ratio: 0, noise_floor_dbfs: -120, vad_threshold_dbfs: -45 },
        { channel: 1, rms_dbfs: -18.35, active_rms_dbfs: -13.47, peak_dbfs: -10.46, clipped_samples: 0, clipping_ratio: 0, noise_floor_dbfs: -120, vad_threshold_dbfs: -45 },
      ],
      segments: [
        [[0, 3], [6, 8], [14, 16]],
        [[3, 6], [7.5, 9], [16, 18]],
      ],
      segments_truncated: false,
      analyzer: {
        name: 'energy-vad',
        version: 1,
        frame_ms: 20,
        absolute_threshold_dbfs: -45,
        noise_margin_db: 12,
        max_threshold_dbfs: -25,
        crosstalk_db: 18,
        min_gap_ms: 200,
        min_speech_ms: 100,
        interruption_window_ms: 3000,
        clip_threshold: 0.999,
      },
    });
  });

  it('does not depend on how the bytes were chunked', async () => {
    const wav = encodeWav(reference, 8000, 's16');
    const a = await analyzeRecording(chunked(wav, [wav.length]), TONE_ANALYSIS);
    const b = await analyzeRecording(chunked(wav, [17, 1, 5000, 3]), TONE_ANALYSIS);
    expect(b).toEqual(a);
  });

  it('is exact at 44.1 kHz and 48 kHz (frames of 882 and 960 samples)', async () => {
    for (const rate of [44100, 48000]) {
      const result = await analyzeRecording(chunked(encodeWav(synthesize(referenceCall(rate)), rate, 's16')), TONE_ANALYSIS);
      expect(result.audio.sample_rate_hz).toBe(rate);
      expectReferenceTimings(result, 0);
    }
  });
});

describe('noise, leakage and clipping', () => {
  it('keeps the timings under white noise at -60 dBFS and -35 dBFS', async () => {
    for (const noiseAmplitude of [0.0017, 0.031]) {
      const noisy = synthesize({ ...referenceCall(8000), noiseAmplitude });
      const result = await analyzeRecording(chunked(encodeWav(noisy, 8000, 's16')), TONE_ANALYSIS);
      expectReferenceTimings(result, 0);
      expect(result.levels[0]!.noise_floor_dbfs).toBeGreaterThan(-120);
    }
  });

  it('does not count the other speaker leaking into a channel (crosstalk rule)', async () => {
    const leaky = synthesize(referenceCall(8000));
    const [operator, customer] = leaky as [Float32Array, Float32Array];
    // -26 dB echo of each speaker in the other channel: loud enough to pass the threshold alone.
    const echoOperator = operator.map((x) => x * 0.05);
    const echoCustomer = customer.map((x) => x * 0.05);
    for (let i = 0; i < operator.length; i++) {
      operator[i]! += echoCustomer[i]!;
      customer[i]! += echoOperator[i]!;
    }
    expectReferenceTimings(await analyzeRecording(chunked(encodeWav(leaky, 8000, 'f32')), TONE_ANALYSIS), 0);
  });

  it('counts clipped samples', async () => {
    const hot = synthesize(referenceCall(8000, 2.5));
    const float = await analyzeRecording(chunked(encodeWav(hot, 8000, 'f32')), TONE_ANALYSIS);
    expect(float.levels[0]!.peak_dbfs).toBe(1.94);
    const result = await analyzeRecording(chunked(encodeWav(hot, 8000, 's16')), TONE_ANALYSIS);
    expect(result.levels[0]!.peak_dbfs).toBe(0);
    expect(result.levels[0]!.clipped_samples).toBeGreaterThan(20000);
    expectReferenceTimings(result, 0);
    expect(result.levels[0]!.clipping_ratio).toBe(Math.round((result.levels[0]!.clipped_samples / 160000) * 1e4) / 1e4);
    expect(result.levels[1]!.clipped_samples).toBe(0);
  });
});

describe('mono and more channels', () => {
  it('mono: speech and silence only, two-speaker fields null', async () => {
    const mono = synthesize({ sampleRate: 8000, durationS: 10, tracks: [{ frequencyHz: 300, amplitude: 0.4, spans: [[1, 4], [5, 6.5]] }] });
    const result = await analyzeRecording(chunked(encodeWav(mono, 8000, 's16')), TONE_ANALYSIS);
    expect(result.channel_roles).toEqual(['mixed']);
    expect(result.talk).toEqual({
      per_channel: [{ channel: 0, role: 'mixed', talk_s: 4.5, talk_ratio: 0.45, segments: 2, longest_monologue_s: 3 }],
      operator_s: null,
      customer_s: null,
      talk_to_listen: null,
      operator_share: null,
    });
    expect(result.silence).toEqual({ total_s: 5.5, ratio: 0.55, longest_s: 3.5, longest_start_s: 6.5 });
    expect(result.overtalk).toBeNull();
    expect(result.turns).toBeNull();
  });

  it('mono: a channel talking all the time still counts as talking', async () => {
    const busy = synthesize({ sampleRate: 8000, durationS: 5, tracks: [{ frequencyHz: 300, amplitude: 0.2, spans: [[0, 5]] }] });
    const result = await analyzeRecording(chunked(encodeWav(busy, 8000, 's16')), TONE_ANALYSIS);
    expect(result.talk.per_channel[0]!.talk_s).toBe(5);
    expect(result.silence).toEqual({ total_s: 0, ratio: 0, longest_s: 0, longest_start_s: null });
  });

  it('digital silence: no talk, levels null', async () => {
    const result = await analyzeRecording(chunked(encodeWav([new Float32Array(8000), new Float32Array(8000)], 8000, 's16')), TONE_ANALYSIS);
    expect(result.talk.operator_s).toBe(0);
    expect(result.talk.talk_to_listen).toBeNull();
    expect(result.talk.operator_share).toBeNull();
    expect(result.silence).toEqual({ total_s: 1, ratio: 1, longest_s: 1, longest_start_s: 0 });
    expect(result.levels[0]).toMatchObject({ rms_dbfs: null, active_rms_dbfs: null, peak_dbfs: null });
  });

  it('a partial last frame counts with its real length', async () => {
    const odd = synthesize({ sampleRate: 8000, durationS: 1.005, tracks: [{ frequencyHz: 300, amplitude: 0.4, spans: [[0, 2]] }] });
    const result = await analyzeRecording(chunked(encodeWav(odd, 8000, 's16')), TONE_ANALYSIS);
    expect(result.audio.duration_s).toBe(1.005);
    expect(result.talk.per_channel[0]!.talk_s).toBe(1.005);
  });

  it('three channels: channels beyond the second are named by index', async () => {
    const three = synthesize({
      sampleRate: 8000,
      durationS: 6,
      tracks: [
        { frequencyHz: 300, amplitude: 0.4, spans: [[0, 2]] },
        { frequencyHz: 500, amplitude: 0.4, spans: [[2, 4]] },
        { frequencyHz: 700, amplitude: 0.4, spans: [[3, 5]] },
      ],
    });
    const result = await analyzeRecording(chunked(encodeWav(three, 8000, 's16')), TONE_ANALYSIS);
    expect(result.channel_roles).toEqual(['operator', 'customer', 'channel_2']);
    expect(result.talk.per_channel.map((c) => c.talk_s)).toEqual([2, 2, 2]);
    expect(result.overtalk?.total_s).toBe(1);
    expect(result.turns).toMatchObject({ count: 3, interruptions: 1, interruptions_by_channel: [0, 0, 1] });
  });
});
