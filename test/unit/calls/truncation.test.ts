import { describe, expect, it } from 'vitest';
import { analyzeRecording } from '../../../runtime/calls/analysis/analyze.js';
import { decodeAudio } from '../../../runtime/calls/audio/decode.js';
import { AudioError } from '../../../runtime/calls/audio/errors.js';
import { OggPageWalker } from '../../../runtime/calls/audio/ogg-pages.js';
import { encodeWith, hasEncoder, missingToolMessage, type ExternalCodec } from '../../helpers/calls/encoders.js';
import { FRAME_S } from '../../helpers/calls/reference.js';
import { chunked, referenceCall, synthesize, TONE_ANALYSIS } from '../../helpers/calls/synth.js';
import { encodeWav } from '../../helpers/calls/wav-writer.js';

/** Decodes to the end: the sample count per channel, or the error's code and message. */
async function outcome(bytes: Uint8Array, sizes: readonly number[] = [4096]): Promise<{ samples: number } | { code: string; message: string }> {
  let samples = 0;
  try {
    for await (const block of decodeAudio(chunked(bytes, sizes))) samples += block.channelData[0]!.length;
  } catch (error) {
    if (!(error instanceof AudioError)) throw error;
    return { code: error.code, message: error.message };
  }
  return { samples };
}

const wav = encodeWav(synthesize(referenceCall(8000)), 8000, 's16');

/** Where `OggS` pages start, from the middle of the file on. */
function pageStarts(ogg: Uint8Array): number[] {
  const bytes = Buffer.from(ogg);
  const starts: number[] = [];
  for (let at = bytes.indexOf('OggS', ogg.length >> 1); at !== -1; at = bytes.indexOf('OggS', at + 1)) starts.push(at);
  return starts;
}

describe('WAV cut short', () => {
  it('inside a sample frame and on a sample-frame boundary: corrupt_audio', async () => {
    expect(await outcome(wav.subarray(0, wav.length - 4001))).toEqual({ code: 'corrupt_audio', message: 'WAV data chunk is truncated: 4001 bytes missing' });
    expect(await outcome(wav.subarray(0, wav.length - 4000))).toEqual({ code: 'corrupt_audio', message: 'WAV data chunk is truncated: 4000 bytes missing' });
    expect(await outcome(wav.subarray(0, 30))).toEqual({ code: 'corrupt_audio', message: 'WAV ends before its data chunk' });
  });
});

const truncatedMessage = /^(MP3|Ogg|FLAC) stream is truncated: /;

const codecs: { codec: ExternalCodec; sampleRate: number }[] = [
  { codec: 'mp3', sampleRate: 8000 },
  { codec: 'mp3-vbr', sampleRate: 8000 },
  { codec: 'vorbis', sampleRate: 8000 },
  { codec: 'opus', sampleRate: 48000 },
  { codec: 'flac', sampleRate: 8000 },
  { codec: 'ogg-flac', sampleRate: 8000 },
];

for (const { codec, sampleRate } of codecs) {
  const available = hasEncoder(codec);
  describe(available ? `${codec} cut short` : missingToolMessage(codec), () => {
    const encoded = available ? encodeWith(codec, wav) : new Uint8Array(0);

    it.skipIf(!available)('the whole file decodes to every sample', async () => {
      expect(await outcome(encoded)).toEqual({ samples: 20 * sampleRate });
    });

    it.skipIf(!available)('cut at any point inside the audio: corrupt_audio saying it is truncated, whatever the read size', async () => {
      for (const cut of [encoded.length - 1, encoded.length - 37, Math.floor(encoded.length * 0.9), Math.floor(encoded.length / 2)]) {
        for (const sizes of [[4096], [encoded.length]]) {
          const result = await outcome(encoded.subarray(0, cut), sizes);
          expect(result).toMatchObject({ code: 'corrupt_audio' });
          expect((result as { message: string }).message).toMatch(truncatedMessage);
        }
      }
    });
  });
}

describe.skipIf(!hasEncoder('mp3'))('MP3 (CBR 64 kb/s at 8 kHz: every frame is 576 bytes, the first is a LAME Info tag declaring 280 audio frames)', () => {
  const mp3 = hasEncoder('mp3') ? Buffer.from(encodeWith('mp3', wav)) : Buffer.alloc(0);

  it('cut inside a frame names the cut frame', async () => {
    expect(mp3.length).toBe(281 * 576);
    expect(await outcome(mp3.subarray(0, 576 * 200 + 100))).toEqual({ code: 'corrupt_audio', message: 'MP3 stream is truncated: its last frame has 100 of 576 bytes' });
  });

  it('cut on a frame boundary is caught by the frame count the Info tag declares', async () => {
    expect(await outcome(mp3.subarray(0, 576 * 200))).toEqual({ code: 'corrupt_audio', message: 'MP3 stream is truncated: 199 of the 280 frames its header declares' });
    expect(await outcome(mp3.subarray(0, mp3.length - 576))).toEqual({ code: 'corrupt_audio', message: 'MP3 stream is truncated: 279 of the 280 frames its header declares' });
  });

  const id3v2 = Buffer.concat([Buffer.from('ID3\x03\x00\x00\x00\x00\x07\x68', 'latin1'), Buffer.alloc(1000)]);
  const apeItem = Buffer.concat([Buffer.from([1, 0, 0, 0, 0, 0, 0, 0]), Buffer.from('Title\0x', 'latin1')]);
  const ape = (isHeader: boolean): Buffer => {
    const block = Buffer.alloc(32);
    block.write('APETAGEX', 0, 'latin1');
    block.writeUInt32LE(2000, 8);
    block.writeUInt32LE(apeItem.length + 32, 12);
    block.writeUInt32LE(1, 16);
    block.writeUInt32LE((2 ** 31 + (isHeader ? 2 ** 29 : 0)) >>> 0, 20);
    return block;
  };
  const id3v1 = Buffer.concat([Buffer.from('TAG', 'latin1'), Buffer.alloc(125, 0x20)]);

  it('ID3v2 in front, APEv2 and ID3v1 behind, junk between frames: complete, every sample', async () => {
    const tagged = Buffer.concat([id3v2, mp3, ape(true), apeItem, ape(false), id3v1]);
    expect(await outcome(tagged)).toEqual({ samples: 160000 });
    const headerlessApe = Buffer.concat([id3v2, mp3, apeItem, ape(false), id3v1]);
    expect(await outcome(headerlessApe)).toEqual({ samples: 160000 });
    const junk = Buffer.concat([mp3.subarray(0, 576 * 100), Buffer.alloc(50), mp3.subarray(576 * 100)]);
    expect(await outcome(junk)).toEqual({ samples: 160000 });
  });

  it('tagged: a cut in the audio fails, a cut inside the trailing ID3v1 tag loses no audio and passes', async () => {
    const tagged = Buffer.concat([id3v2, mp3, id3v1]);
    expect(await outcome(tagged.subarray(0, id3v2.length + 576 * 150 + 33))).toEqual({
      code: 'corrupt_audio',
      message: 'MP3 stream is truncated: its last frame has 33 of 576 bytes',
    });
    expect(await outcome(tagged.subarray(0, tagged.length - 50))).toEqual({ samples: 160000 });
  });
});

for (const codec of ['vorbis', 'opus', 'ogg-flac'] as const) {
  describe.skipIf(!hasEncoder(codec))(`Ogg ${codec} cut on a page boundary`, () => {
    it('misses its end-of-stream page: corrupt_audio', async () => {
      const ogg = encodeWith(codec, wav);
      const starts = pageStarts(ogg);
      for (const cut of [starts[0]!, starts[starts.length - 1]!]) {
        const result = await outcome(ogg.subarray(0, cut));
        expect(result).toMatchObject({ code: 'corrupt_audio' });
        expect((result as { message: string }).message).toMatch(/^Ogg stream is truncated: it ends after \d+ pages without its end-of-stream page$/);
      }
    });
  });
}

describe('Ogg page walker', () => {
  /** One page: header type, serial, and a body of `body` bytes in one segment. */
  const page = (type: number, serial: number, body: number): Buffer => {
    const header = Buffer.alloc(28 + body);
    header.write('OggS', 0, 'latin1');
    header[5] = type;
    header.writeUInt32LE(serial, 14);
    header[26] = 1;
    header[27] = body;
    return header;
  };
  const walk = (bytes: Uint8Array, sizes: readonly number[] = [7]): string | null => {
    const walker = new OggPageWalker();
    try {
      let at = 0;
      for (let i = 0; at < bytes.length; i++) {
        const size = sizes[i % sizes.length]!;
        walker.push(bytes.subarray(at, at + size));
        at += size;
      }
      walker.end();
      return null;
    } catch (error) {
      return (error as AudioError).message;
    }
  };

  it('accepts complete streams, chained streams and bytes after the last end-of-stream page', () => {
    const one = Buffer.concat([page(2, 1, 10), page(0, 1, 20), page(4, 1, 5)]);
    expect(walk(one)).toBeNull();
    expect(walk(one, [1])).toBeNull();
    expect(walk(Buffer.concat([one, page(2, 2, 3), page(4, 2, 3)]))).toBeNull();
    expect(walk(Buffer.concat([one, Buffer.from('TAG trailing bytes', 'latin1')]))).toBeNull();
    expect(walk(Buffer.concat([one, Buffer.from('Og', 'latin1')]))).toBeNull();
  });

  it('names what is wrong with a damaged or cut stream', () => {
    const two = Buffer.concat([page(2, 1, 10), page(0, 1, 20)]);
    expect(walk(two)).toBe('Ogg stream is truncated: it ends after 2 pages without its end-of-stream page');
    expect(walk(Buffer.concat([two, page(4, 1, 5)]).subarray(0, 78))).toBe('Ogg stream is truncated: it ends inside a page, at byte 78');
    expect(walk(Buffer.concat([two, page(4, 1, 5)]).subarray(0, 100))).toBe('Ogg stream is truncated: it ends inside a page, at byte 100');
    expect(walk(Buffer.concat([two, Buffer.alloc(3), page(4, 1, 5)]))).toBe('Ogg stream is damaged: no page starts at byte 86');
    expect(walk(Buffer.concat([page(2, 1, 10), page(4, 9, 5)]))).toBe('Ogg page at byte 38 belongs to a stream that never began or already ended');
  });
});

describe.skipIf(!hasEncoder('flac'))('FLAC whose STREAMINFO declares no sample count (as encoders writing to a pipe leave it)', () => {
  const unknownLength = (): Buffer => {
    const flac = Buffer.from(encodeWith('flac', wav));
    flac[21] = flac[21]! & 0xf0;
    flac.fill(0, 22, 26);
    return flac;
  };

  it('decodes completely, whatever the read size', async () => {
    const flac = unknownLength();
    for (const sizes of [[100], [4096], [flac.length]]) expect(await outcome(flac, sizes)).toEqual({ samples: 160000 });
  });

  it('cut inside a frame: corrupt_audio, the last frame fails its CRC', async () => {
    const flac = unknownLength();
    for (const cut of [flac.length - 1, flac.length - 2, Math.floor(flac.length / 2)]) {
      expect(await outcome(flac.subarray(0, cut))).toEqual({ code: 'corrupt_audio', message: 'FLAC stream is truncated: it does not end with a whole frame' });
    }
  });
});

describe('FLAC keeps its tail', () => {
  it.skipIf(!hasEncoder('flac'))('a 1-minute FLAC reports 60.00 s within one 20 ms frame, streamed in any read size', async () => {
    const minute = { sampleRate: 44100, durationS: 60, tracks: [{ frequencyHz: 440, amplitude: 0.5, spans: [[0, 60]] as const }, { frequencyHz: 660, amplitude: 0.3, spans: [[30, 60]] as const }] };
    const flac = encodeWith('flac', encodeWav(synthesize(minute), 44100, 's16'));
    for (const sizes of [[4096], [65536, 1000], [flac.length]]) {
      const result = await analyzeRecording(chunked(flac, sizes), TONE_ANALYSIS);
      expect(Math.abs(result.audio.duration_s - 60)).toBeLessThanOrEqual(FRAME_S);
      expect(result.audio.duration_s).toBe(60);
      expect(result.segments[1]).toEqual([[30, 60]]);
    }
  });
});
