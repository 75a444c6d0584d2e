import { describe, expect, it } from 'vitest';
import { decodeAudio } from '../../../runtime/calls/audio/decode.js';
import { AudioError } from '../../../runtime/calls/audio/errors.js';
import type { PcmBlock } from '../../../runtime/calls/audio/pcm-block.js';
import { chunked, referenceCall, synthesize } from '../../helpers/calls/synth.js';
import { asExtensible, encodeWav, withFormatTag, type WavEncoding } from '../../helpers/calls/wav-writer.js';

interface Collected {
  readonly sampleRate: number;
  readonly codec: string;
  readonly container: string;
  readonly channels: Float32Array[];
}

async function collect(source: AsyncIterable<Uint8Array>): Promise<Collected> {
  const blocks: PcmBlock[] = [];
  let codec = '';
  let container = '';
  for await (const block of decodeAudio(source)) {
    blocks.push(block);
    codec = block.description.codec;
    container = block.description.container;
  }
  const channels = blocks[0]!.channelData.map((_, c) => {
    const out = new Float32Array(blocks.reduce((n, b) => n + b.channelData[c]!.length, 0));
    let at = 0;
    for (const b of blocks) {
      out.set(b.channelData[c]!, at);
      at += b.channelData[c]!.length;
    }
    return out;
  });
  return { sampleRate: blocks[0]!.sampleRate, codec, container, channels };
}

async function failure(source: AsyncIterable<Uint8Array>): Promise<{ code: string; message: string }> {
  try {
    for await (const block of decodeAudio(source)) void block;
  } catch (error) {
    expect(error).toBeInstanceOf(AudioError);
    const { code, message } = error as AudioError;
    return { code, message };
  }
  throw new Error('decoding succeeded');
}

function maxError(a: Float32Array, b: Float32Array): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}

const source = synthesize({ ...referenceCall(8000), durationS: 2 });

describe('WAV decoding', () => {
  const cases: [WavEncoding, string, number][] = [
    ['u8', 'pcm_u8', 1 / 128],
    ['s16', 'pcm_s16le', 1 / 32768],
    ['s24', 'pcm_s24le', 1 / 2 ** 23],
    ['s32', 'pcm_s32le', 1 / 2 ** 31],
    ['f32', 'pcm_f32le', 0],
    ['f64', 'pcm_f64le', 0],
    // G.711 steps are up to 1024/32768 at full scale (the largest segment of the companding curve).
    ['mulaw', 'pcm_mulaw', 1024 / 32768],
    ['alaw', 'pcm_alaw', 1024 / 32768],
  ];
  it.each(cases)('%s decodes to the source samples within one quantisation step', async (encoding, codec, step) => {
    const decoded = await collect(chunked(encodeWav(source, 8000, encoding)));
    expect(decoded).toMatchObject({ sampleRate: 8000, codec, container: 'wav' });
    expect(decoded.channels).toHaveLength(2);
    decoded.channels.forEach((channel, c) => {
      expect(channel.length).toBe(16000);
      expect(maxError(channel, source[c]!)).toBeLessThanOrEqual(step);
    });
  });

  it('reads WAVE_FORMAT_EXTENSIBLE with an extra chunk before data', async () => {
    const decoded = await collect(chunked(asExtensible(encodeWav(source, 8000, 's16'))));
    expect(decoded.codec).toBe('pcm_s16le');
    expect(maxError(decoded.channels[1]!, source[1]!)).toBeLessThanOrEqual(1 / 32768);
  });

  it('reads extensible float and mu-law', async () => {
    for (const [encoding, codec] of [['f32', 'pcm_f32le'], ['mulaw', 'pcm_mulaw']] as const) {
      const decoded = await collect(chunked(asExtensible(encodeWav(source, 8000, encoding))));
      expect(decoded.codec).toBe(codec);
      expect(decoded.channels[0]!.length).toBe(16000);
    }
  });

  it('gives the same samples whatever the chunking (1-byte, odd and large reads)', async () => {
    const wav = encodeWav(source, 8000, 's24');
    const whole = await collect(chunked(wav, [wav.length]));
    const split = await collect(chunked(wav, [1, 7, 3, 1000, 13]));
    expect(split.channels).toEqual(whole.channels);
  });

  it('reads a data chunk of unknown length (0xFFFFFFFF, as streaming writers emit) to the end', async () => {
    const streamed = Buffer.from(encodeWav(source, 8000, 's16'));
    streamed.writeUInt32LE(0xffffffff, 40);
    const decoded = await collect(chunked(streamed, [1000]));
    expect(decoded.channels[0]!.length).toBe(16000);
    const ragged = Buffer.concat([streamed, Buffer.from([1])]);
    expect(await failure(chunked(ragged))).toEqual({ code: 'corrupt_audio', message: 'WAV data ends inside a sample frame' });
  });

  it('maps G.711 code words to the standard values', async () => {
    const mono = [Float32Array.from([0, 1000 / 32768, -1000 / 32768, 32767 / 32768])];
    const mu = await collect(chunked(encodeWav(mono, 8000, 'mulaw')));
    expect(Array.from(mu.channels[0]!, (x) => Math.round(x * 32768))).toEqual([0, 988, -988, 32124]);
    const a = await collect(chunked(encodeWav(mono, 8000, 'alaw')));
    expect(Array.from(a.channels[0]!, (x) => Math.round(x * 32768))).toEqual([8, 1008, -1008, 32256]);
  });
});

describe('bad input', () => {
  const wav = encodeWav(source, 8000, 's16');

  it('rejects formats we do not decode', async () => {
    expect(await failure(chunked(Buffer.from('<!DOCTYPE html><html><body>Expired</body></html>')))).toEqual({
      code: 'unsupported_audio_format',
      message: 'the bytes are not a recognised audio format',
    });
    expect((await failure(chunked(withFormatTag(wav, 0x0002)))).code).toBe('unsupported_audio_format');
    const rifx = Buffer.from(wav);
    rifx.write('RIFX', 0, 'latin1');
    expect(await failure(chunked(rifx))).toEqual({ code: 'unsupported_audio_format', message: 'the bytes are not a recognised audio format' });
    const aiff = Buffer.concat([Buffer.from('FORM\x00\x00\x00\x20AIFFCOMM', 'latin1'), Buffer.alloc(64)]);
    expect(await failure(chunked(aiff))).toEqual({ code: 'unsupported_audio_format', message: 'aiff audio is not supported' });
  });

  it('rejects empty input and an empty data chunk', async () => {
    expect((await failure(chunked(new Uint8Array(0)))).code).toBe('empty_audio');
    expect(await failure(chunked(encodeWav([new Float32Array(0)], 8000, 's16')))).toEqual({
      code: 'empty_audio',
      message: 'the WAV data chunk holds no samples',
    });
  });

  it('rejects a header cut short and data cut short', async () => {
    expect(await failure(chunked(wav.subarray(0, 30)))).toEqual({ code: 'corrupt_audio', message: 'WAV ends before its data chunk' });
    expect(await failure(chunked(wav.subarray(0, wav.length - 1001)))).toEqual({
      code: 'corrupt_audio',
      message: 'WAV data chunk is truncated: 1001 bytes missing',
    });
  });

  it('rejects nonsense in the fmt chunk', async () => {
    const zeroChannels = Buffer.from(wav);
    zeroChannels.writeUInt16LE(0, 22);
    expect(await failure(chunked(zeroChannels))).toEqual({ code: 'corrupt_audio', message: 'WAV declares 0 channels' });
    const badAlign = Buffer.from(wav);
    badAlign.writeUInt16LE(3, 32);
    expect((await failure(chunked(badAlign))).code).toBe('corrupt_audio');
  });

  it('stops with audio_too_long at the duration cap', async () => {
    const error = await (async () => {
      try {
        for await (const block of decodeAudio(chunked(wav, [4096]), { maxDurationSeconds: 1.5 })) void block;
      } catch (e) {
        return e as AudioError;
      }
      return null;
    })();
    expect(error?.code).toBe('audio_too_long');
  });
});
