import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Compressed fixtures are produced at test time by Debian's command-line encoders, from WAVs
 * synthesized in the test. Tests that need a missing tool skip with `missingToolMessage`.
 */
export type ExternalCodec = 'mp3' | 'mp3-vbr' | 'flac' | 'ogg-flac' | 'vorbis' | 'opus';

const tools: Record<ExternalCodec, { bin: string; apt: string; args: (input: string, output: string) => string[] }> = {
  mp3: { bin: 'lame', apt: 'lame', args: (i, o) => ['--quiet', '-b', '64', i, o] },
  // Variable frame lengths, and a Xing (rather than Info) tag in the first frame.
  'mp3-vbr': { bin: 'lame', apt: 'lame', args: (i, o) => ['--quiet', '-V', '5', i, o] },
  flac: { bin: 'flac', apt: 'flac', args: (i, o) => ['--silent', '--force', '-o', o, i] },
  'ogg-flac': { bin: 'flac', apt: 'flac', args: (i, o) => ['--silent', '--force', '--ogg', '-o', o, i] },
  vorbis: { bin: 'oggenc', apt: 'vorbis-tools', args: (i, o) => ['--quiet', '-o', o, i] },
  opus: { bin: 'opusenc', apt: 'opus-tools', args: (i, o) => ['--quiet', i, o] },
};

export function hasEncoder(codec: ExternalCodec): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${tools[codec].bin}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function missingToolMessage(codec: ExternalCodec): string {
  const tool = tools[codec];
  return `${codec} fixtures need \`${tool.bin}\` (apt-get install -y ${tool.apt}); skipped`;
}

export function encodeWith(codec: ExternalCodec, wav: Uint8Array): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'calls-fixture-'));
  try {
    const input = join(dir, 'in.wav');
    const output = join(dir, 'out.bin');
    writeFileSync(input, wav);
    execFileSync(tools[codec].bin, tools[codec].args(input, output), { stdio: 'ignore' });
    return new Uint8Array(readFileSync(output));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
