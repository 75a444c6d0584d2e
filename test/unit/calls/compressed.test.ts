import { describe, expect, it } from 'vitest';
import { analyzeRecording } from '../../../runtime/calls/analysis/analyze.js';
import { decodeAudio } from '../../../runtime/calls/audio/decode.js';
import { AudioError } from '../../../runtime/calls/audio/errors.js';
import { encodeWith, hasEncoder, missingToolMessage, type ExternalCodec } from '../../helpers/calls/encoders.js';
import { FRAME_S, expectReferenceTimings } from '../../helpers/calls/reference.js';
import { chunked, referenceCall, synthesize, TONE_ANALYSIS } from '../../helpers/calls/synth.js';
import { encodeWav } from '../../helpers/calls/wav-writer.js';

async function failure(bytes: Uint8Array): Promise<AudioError> {
  try {
    for await (const block of decodeAudio(chunked(bytes, [4096]))) void block;
  } catch (error) {
    expect(error).toBeInstanceOf(AudioError);
    return error as AudioError;
  }
  throw new Error('decoding succeeded');
}

const wav = encodeWav(synthesize(referenceCall(8000)), 8000, 's16');

const cases: { codec: ExternalCodec; container: string; reported: string; sampleRate: number; tolerance: number }[] = [
  { codec: 'flac', container: 'flac', reported: 'flac', sampleRate: 8000, tolerance: 0 },
  { codec: 'ogg-flac', container: 'ogg', reported: 'flac', sampleRate: 8000, tolerance: 0 },
  { codec: 'mp3', container: 'mp3', reported: 'mp3', sampleRate: 8000, tolerance: FRAME_S },
  { codec: 'vorbis', container: 'ogg', reported: 'vorbis', sampleRate: 8000, tolerance: FRAME_S },
  // Opus always decodes at 48 kHz.
  { codec: 'opus', container: 'ogg', reported: 'opus', sampleRate: 48000, tolerance: FRAME_S },
];

for (const { codec, container, reported, sampleRate, tolerance } of cases) {
  const available = hasEncoder(codec);
  describe(available ? `${codec} recordings` : missingToolMessage(codec), () => {
    const encoded = available ? encodeWith(codec, wav) : new Uint8Array(0);

    it.skipIf(!available)(`decodes the reference call ${tolerance ? 'within one frame' : 'exactly'}, streamed in 4 KiB reads`, async () => {
      const result = await analyzeRecording(chunked(encoded, [4096]), TONE_ANALYSIS);
      expect(result.audio).toMatchObject({ container, codec: reported, sample_rate_hz: sampleRate, channels: 2 });
      expectReferenceTimings(result, tolerance);
    });

    it.skipIf(!available)('decodes every sample whatever the read sizes (frame headers split across reads)', async () => {
      const counts = new Set<number>();
      for (const sizes of [[100], [137], [174, 59], [4096], [encoded.length]]) {
        let samples = 0;
        for await (const block of decodeAudio(chunked(encoded, sizes))) samples += block.channelData[0]!.length;
        counts.add(samples);
      }
      expect([...counts]).toEqual([20 * sampleRate]);
    });

    it.skipIf(!available)('reports a cut-off stream as corrupt_audio (truncation.test.ts has the cases)', async () => {
      expect((await failure(encoded.subarray(0, Math.floor(encoded.length / 2)))).code).toBe('corrupt_audio');
    });

    it.skipIf(!available)('reports a stream whose body is garbage after a valid header as corrupt_audio', async () => {
      const garbage = new Uint8Array(3000).map((_, i) => (i * 7919 + 13) & 0xff);
      // MP3 has no stream header to keep: an ID3 tag declaring more bytes than follow is "MP3" to the
      // sniffer, and holds no frame for mpg123.
      const head = codec === 'mp3' ? Buffer.from('ID3\x03\x00\x00\x00\x00\x7f\x7fTIT2\x00\x00\x00\x00\x00\x00', 'latin1') : encoded.subarray(0, 4200);
      const body = codec === 'mp3' ? Buffer.from('not audio at all. '.repeat(200)) : garbage;
      expect((await failure(new Uint8Array([...head, ...body]))).code).toBe('corrupt_audio');
    });
  });
}

describe('containers and codecs we refuse', () => {
  it('an Ogg stream that is neither Vorbis, Opus nor FLAC', async () => {
    const page = new Uint8Array(64);
    page.set([0x4f, 0x67, 0x67, 0x53, 0, 2], 0);
    page[26] = 1;
    page[27] = 30;
    page.set(Buffer.from('\x80theora', 'latin1'), 28);
    const error = await failure(page);
    expect({ code: error.code, message: error.message }).toEqual({
      code: 'unsupported_audio_format',
      message: 'Ogg stream with a codec other than Vorbis, Opus or FLAC',
    });
  });

  it('MP4/M4A', async () => {
    const m4a = Buffer.concat([Buffer.from('\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00M4A mp42isom', 'latin1'), Buffer.alloc(100)]);
    expect((await failure(m4a)).code).toBe('unsupported_audio_format');
  });
});
