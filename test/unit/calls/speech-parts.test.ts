import { describe, expect, it } from 'vitest';
import { CallsSettingsError, readCallsSettings } from '../../../runtime/calls/settings.js';
import { parseVerboseJson, WHISPER_LANGUAGES } from '../../../runtime/calls/transcript/openai-engine.js';
import { medianPitch } from '../../../runtime/calls/transcript/pitch.js';
import { splitByPitch } from '../../../runtime/calls/transcript/pitch-speakers.js';
import { parsePocketsphinxTimes } from '../../../runtime/calls/transcript/pocketsphinx-engine.js';
import { LinearResampler } from '../../../runtime/calls/transcript/resampler.js';
import { SpeechChunker } from '../../../runtime/calls/transcript/speech-chunker.js';
import { servesLanguage } from '../../../runtime/calls/transcript/speech-engine.js';
import { groupUtterances, placeWord } from '../../../runtime/calls/transcript/utterances.js';

describe('engine output parsers', () => {
  it('PocketSphinx -time yes: words with times and posteriors, fillers and variants dropped', () => {
    const output = ['hello world', '<s> 0.000 0.150 0.999500', 'hello 0.160 0.530 0.366698', '<sil> 0.540 0.760 0.997603', '[NOISE] 0.770 0.800 0.5', 'forgot(2) 1.270 1.770 0.999700', '</s> 4.240 4.410 1.000000'].join('\n');
    expect(parsePocketsphinxTimes(output)).toEqual([
      { text: 'hello', start: 0.16, end: 0.53, confidence: 0.366698 },
      { text: 'forgot', start: 1.27, end: 1.77, confidence: 0.9997 },
    ]);
  });

  it('verbose_json: trimmed words; probability, else the segment probability, else 1', () => {
    expect(
      parseVerboseJson({
        words: [{ word: ' Hi', start: 0, end: 0.2 }, { word: 'there', start: 0.3, end: 0.5, probability: 0.7 }, { word: ' ', start: 1, end: 1 }, { word: 'late', start: 5, end: 5.5 }],
        segments: [{ start: 0, end: 1, avg_logprob: Math.log(0.25) }],
      }),
    ).toEqual([
      { text: 'Hi', start: 0, end: 0.2, confidence: 0.25 },
      { text: 'there', start: 0.3, end: 0.5, confidence: 0.7 },
      { text: 'late', start: 5, end: 5.5, confidence: 1 },
    ]);
    expect(() => parseVerboseJson({ text: 'x' })).toThrow(/without word timestamps/);
  });
});

describe('languages', () => {
  it('a tag serves its subtags, case-insensitively, never a different language', () => {
    expect(servesLanguage(['en'], 'en-US')).toBe(true);
    expect(servesLanguage(['en'], 'EN')).toBe(true);
    expect(servesLanguage(['en-GB'], 'en-US')).toBe(false);
    expect(servesLanguage(['en'], 'eng')).toBe(false);
    expect(servesLanguage(WHISPER_LANGUAGES, 'pt-BR')).toBe(true);
    expect(servesLanguage(WHISPER_LANGUAGES, 'yue')).toBe(false);
  });
});

describe('speech settings (CALLS_SPEECH_*)', () => {
  it('unset: the local engines that need nothing more; none: no engine', () => {
    // No PocketSphinx on an empty PATH, no sherpa model: nothing to use.
    expect(readCallsSettings({}).speech).toEqual({ engines: [], chosenBy: 'installed', timeoutMs: 120_000 });
    expect(readCallsSettings({ CALLS_SPEECH_ENGINES: '', CALLS_SPEECH_SHERPA_MODEL_DIR: '/m', CALLS_SPEECH_SHERPA_LANGUAGES: 'en', CALLS_SPEECH_OPENAI_URL: 'https://api.example.com/v1' }).speech).toEqual({
      engines: [{ kind: 'sherpa', modelDir: '/m', languages: ['en'] }],
      chosenBy: 'installed',
      timeoutMs: 120_000,
    });
    expect(readCallsSettings({ CALLS_SPEECH_ENGINES: 'none', CALLS_SPEECH_SHERPA_MODEL_DIR: '/m', CALLS_SPEECH_SHERPA_LANGUAGES: 'en' }).speech).toEqual({ engines: [], chosenBy: 'setting', timeoutMs: 120_000 });
  });

  it('engines in the order given, each with its variables', () => {
    const { engines } = readCallsSettings({
      CALLS_SPEECH_ENGINES: 'openai, pocketsphinx',
      CALLS_SPEECH_OPENAI_URL: 'https://api.example.com/v1',
      CALLS_SPEECH_OPENAI_KEY: 'sk-1',
      CALLS_SPEECH_OPENAI_LANGUAGES: 'en,fr',
      CALLS_ALLOW_CIDRS: '10.0.0.0/8',
    }).speech;
    expect(engines).toEqual([
      { kind: 'openai', baseUrl: 'https://api.example.com/v1', model: 'whisper-1', apiKey: 'sk-1', languages: ['en', 'fr'], timeoutMs: 120_000, policy: { allowPrivate: false, allowCidrs: ['10.0.0.0/8'] } },
      { kind: 'pocketsphinx' },
    ]);
  });

  it('refuses an unknown engine and an engine without what it needs, naming the variable', () => {
    expect(() => readCallsSettings({ CALLS_SPEECH_ENGINES: 'vosk' })).toThrow(new CallsSettingsError('CALLS_SPEECH_ENGINES: unknown engine "vosk" (known: openai, sherpa, pocketsphinx, or none)'));
    expect(() => readCallsSettings({ CALLS_SPEECH_ENGINES: 'none,pocketsphinx' })).toThrow(new CallsSettingsError('CALLS_SPEECH_ENGINES: "none" turns transcripts off and goes alone, got "none,pocketsphinx"'));
    expect(() => readCallsSettings({ CALLS_SPEECH_ENGINES: 'openai' })).toThrow(/CALLS_SPEECH_OPENAI_URL must be set/);
    expect(() => readCallsSettings({ CALLS_SPEECH_ENGINES: 'sherpa', CALLS_SPEECH_SHERPA_MODEL_DIR: '/m' })).toThrow(/CALLS_SPEECH_SHERPA_LANGUAGES must list/);
  });
});

describe('chunking at silences', () => {
  /** 8 kHz blocks of 0.5 s: a 0.5 amplitude 200 Hz tone where `talking(t)`, silence elsewhere. */
  function* blocks(seconds: number, talking: (t: number) => boolean, channels = 1): Generator<{ sampleRate: number; channelData: Float32Array[] }> {
    const rate = 8000;
    for (let b = 0; b < seconds * 2; b++) {
      const data = new Float32Array(rate / 2);
      for (let i = 0; i < data.length; i++) {
        const t = b / 2 + i / rate;
        data[i] = talking(t) ? 0.5 * Math.sin(2 * Math.PI * 200 * t) : 0;
      }
      yield { sampleRate: rate, channelData: Array.from({ length: channels }, () => data) };
    }
  }

  it('cuts after 15 s at the first silence of 0.3 s, and drops silence but for the 0.3 s before talk', () => {
    // Talk 10 s, pause 1 s, repeated: cuts fall in the pauses.
    const chunker = new SpeechChunker();
    const chunks = [...blocks(60, (t) => t % 11 < 10)].flatMap((block) => chunker.push(block)).concat(chunker.finish());
    expect(chunks.map((c) => [c.offset, Math.round((c.samples.length / 16000) * 100) / 100])).toEqual([
      [0, 21.3],
      [21.9, 21.4],
      [43.9, 16.1],
    ]);
  });

  it('a 1-hour call of unbroken talk is sent in 30 s chunks: what is held never exceeds one chunk per channel', () => {
    const chunker = new SpeechChunker();
    let count = 0;
    let longest = 0;
    for (const block of blocks(3600, () => true, 2)) {
      for (const chunk of chunker.push(block)) {
        count++;
        longest = Math.max(longest, chunk.samples.length);
      }
    }
    for (const chunk of chunker.finish()) {
      count++;
      longest = Math.max(longest, chunk.samples.length);
    }
    expect(longest).toBe(30 * 16000);
    expect(count).toBe(2 * 120);
  }, 60_000);

  it('resamples 8 kHz to 16 kHz whatever the block sizes', () => {
    const input = Float32Array.from({ length: 800 }, (_, i) => Math.sin(i / 10));
    const whole = new LinearResampler(8000, 16000).push(input);
    const split = new LinearResampler(8000, 16000);
    const pieces = [input.subarray(0, 1), input.subarray(1, 333), input.subarray(333)].map((part) => [...split.push(part)]);
    expect(pieces.flat()).toEqual([...whole]);
    expect(whole.length).toBe(1598);
    expect(whole[2]).toBeCloseTo(input[1]!, 6);
  });
});

describe('speakers by pitch', () => {
  const tone = (hz: number, seconds: number): Float32Array => Float32Array.from({ length: seconds * 16000 }, (_, i) => 0.3 * Math.sin((2 * Math.PI * hz * i) / 16000) + 0.2 * Math.sin((4 * Math.PI * hz * i) / 16000));

  it('measures the pitch of a voiced stretch', () => {
    expect(medianPitch(tone(120, 1), 16000, 0, 16000)).toBeCloseTo(120, -1);
    expect(medianPitch(tone(220, 1), 16000, 0, 16000)).toBeCloseTo(220, -1);
    expect(medianPitch(new Float32Array(16000), 16000, 0, 16000)).toBeNull();
  });

  const turns = (pitches: readonly number[]) => pitches.flatMap((hz, turn) => [0, 1, 2].map((w) => ({ start: turn * 5 + w * 0.3, end: turn * 5 + w * 0.3 + 0.25, pitchHz: hz })));

  it('two voices a third of an octave apart: two speakers, the first heard is speaker 0', () => {
    const split = splitByPitch(turns([210, 118, 205, 122, 215, 120]));
    expect(split).toMatchObject({ speakers: 2, confidence: 1 });
    expect(split.speakerOf).toEqual([0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1]);
  });

  it('one voice wandering in pitch: one speaker, with its low confidence', () => {
    const split = splitByPitch(turns([120, 126, 118, 131, 123, 128]));
    expect(split.speakers).toBe(1);
    expect(split.confidence).toBeLessThan(0.5);
    expect(new Set(split.speakerOf)).toEqual(new Set([0]));
  });
});

describe('utterances', () => {
  it('a new utterance at each change of speaker and after a pause over 1.5 s', () => {
    const words = [
      placeWord('hi', 0, 0.3, 0.9, 'operator'),
      placeWord('there', 0.4, 0.8, 0.7, 'operator'),
      placeWord('hello', 1, 1.4, 0.5, 'customer'),
      placeWord('so', 3.5, 3.8, 1, 'customer'),
    ];
    expect(groupUtterances(words.reverse()).map((u) => [u.speaker, u.start, u.end, u.confidence, u.text])).toEqual([
      ['operator', 0, 0.8, 0.8, 'hi there'],
      ['customer', 1, 1.4, 0.5, 'hello'],
      ['customer', 3.5, 3.8, 1, 'so'],
    ]);
  });
});
