import audioType from 'audio-type';
import { AudioError } from './errors.js';
import type { AudioContainer } from './pcm-block.js';

export type SniffedAudio =
  | { readonly container: 'wav'; readonly codec: null }
  | { readonly container: Exclude<AudioContainer, 'wav'>; readonly codec: 'mp3' | 'flac' | 'vorbis' | 'opus' };

/** How many leading bytes `sniffAudio` wants (ID3 tags in front of MP3 need more than the magic bytes). */
export const SNIFF_BYTES = 4096;

function startsWithOgg(head: Uint8Array): boolean {
  return head[0] === 0x4f && head[1] === 0x67 && head[2] === 0x67 && head[3] === 0x53;
}

/** The Vorbis identification header (`\x01vorbis`) sits right after the first Ogg page header. */
function isOggVorbis(head: Uint8Array): boolean {
  const body = 27 + (head[26] ?? 0);
  const signature = [0x01, 0x76, 0x6f, 0x72, 0x62, 0x69, 0x73];
  return signature.every((byte, i) => head[body + i] === byte);
}

/** Decides from the first bytes which decoder a recording needs; throws for anything else. */
export function sniffAudio(head: Uint8Array): SniffedAudio {
  if (head.length === 0) throw new AudioError('empty_audio', 'the recording is empty');
  // audio-type reads `head.buffer` from offset 0, ignoring byteOffset: hand it a copy that starts at 0.
  const type = audioType(new Uint8Array(head.subarray(0, SNIFF_BYTES)));
  switch (type) {
    case 'wav':
      return { container: 'wav', codec: null };
    case 'mp3':
      return { container: 'mp3', codec: 'mp3' };
    case 'flac':
      return { container: startsWithOgg(head) ? 'ogg' : 'flac', codec: 'flac' };
    case 'opus':
      return { container: 'ogg', codec: 'opus' };
    case 'oga':
      if (isOggVorbis(head)) return { container: 'ogg', codec: 'vorbis' };
      throw new AudioError('unsupported_audio_format', 'Ogg stream with a codec other than Vorbis, Opus or FLAC');
    case undefined:
      throw new AudioError('unsupported_audio_format', 'the bytes are not a recognised audio format');
    default:
      throw new AudioError('unsupported_audio_format', `${type} audio is not supported`);
  }
}
