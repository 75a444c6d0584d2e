import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWith, hasEncoder, missingToolMessage, type ExternalCodec } from '../../helpers/calls/encoders.js';
import { expectReferenceTimings, FRAME_S } from '../../helpers/calls/reference.js';
import { referenceCall, synthesize } from '../../helpers/calls/synth.js';
import { asExtensible, encodeWav } from '../../helpers/calls/wav-writer.js';
import { callsEnv, startCallsHarness, type CallsHarness } from '../../helpers/calls/harness.js';
import { startRecordingServer } from '../../helpers/calls/recordings.js';

/** Every format through the whole API: submit, fetch, decode, analyse, read the result back. */
const channels = synthesize(referenceCall(8000));
const pcm = encodeWav(channels, 8000, 's16');
const lossless: Record<string, Uint8Array> = {
  '/mulaw.wav': encodeWav(channels, 8000, 'mulaw'),
  '/alaw.wav': encodeWav(channels, 8000, 'alaw'),
  '/extensible.wav': asExtensible(encodeWav(channels, 8000, 's24')),
};
const compressed: [ExternalCodec, number][] = [
  ['flac', 0],
  ['mp3', FRAME_S],
  ['vorbis', FRAME_S],
  ['opus', FRAME_S],
];
const available = compressed.filter(([codec]) => hasEncoder(codec));
for (const [codec] of compressed.filter(([codec]) => !hasEncoder(codec))) console.warn(missingToolMessage(codec));

let h: CallsHarness;
let rec: Awaited<ReturnType<typeof startRecordingServer>>;

beforeAll(async () => {
  const encoded = available.map(([codec]): [ExternalCodec, Uint8Array] => [codec, encodeWith(codec, pcm)]);
  const files = {
    ...lossless,
    '/cut.wav': pcm.subarray(0, pcm.length - 1001),
    ...Object.fromEntries(encoded.map(([codec, bytes]) => [`/call.${codec}`, bytes])),
    ...Object.fromEntries(encoded.map(([codec, bytes]) => [`/cut.${codec}`, bytes.subarray(0, Math.floor(bytes.length * 0.9))])),
  };
  rec = await startRecordingServer(files);
  h = await startCallsHarness(callsEnv());
});
afterAll(async () => {
  await h?.close();
  await rec?.close();
});

describe('formats through the API', () => {
  it('WAV μ-law, A-law, extensible and the compressed codecs give the reference answers', async () => {
    const { key } = await h.newTenant();
    const cases: [string, number][] = [...Object.keys(lossless).map((path): [string, number] => [path, 0]), ...available.map(([codec, tolerance]): [string, number] => [`/call.${codec}`, tolerance])];
    const ids = await Promise.all(
      cases.map(async ([path]) => (await h.request('POST', '/v1/calls/analyze', { key, body: { audio_url: `${rec.url}${path}`, language: 'en', operator_id: 'op' } })).body.id as string),
    );
    for (const [i, [path, tolerance]] of cases.entries()) {
      const done = await h.waitForCall(key, ids[i]!);
      expect([path, done.body.status]).toEqual([path, 'completed']);
      expectReferenceTimings(done.body.result, tolerance);
    }
  });

  it('a recording cut short fails with corrupt_audio (422) in every format, never completes with a shorter duration', async () => {
    const { key } = await h.newTenant();
    const paths = ['/cut.wav', ...available.map(([codec]) => `/cut.${codec}`)];
    const ids = await Promise.all(
      paths.map(async (path) => (await h.request('POST', '/v1/calls/analyze', { key, body: { audio_url: `${rec.url}${path}`, language: 'en', operator_id: 'op' } })).body.id as string),
    );
    for (const [i, path] of paths.entries()) {
      const done = await h.waitForCall(key, ids[i]!);
      expect([path, done.body.status, done.body.result, done.body.error.code, done.body.error.status]).toEqual([path, 'failed', null, 'corrupt_audio', 422]);
      expect(done.body.error.message).toMatch(/truncated/);
    }
  });
});
