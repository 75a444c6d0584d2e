import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, sourceFiles, valueSpecifiers } from '../helpers/import-graph.js';

/**
 * The layers point one way: the host (composition root) imports the APIs it serves, never the
 * reverse, and the runtime never imports the generator (generated code stands on the runtime).
 */

const root = path.resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.join(dir, file));
}

/** The repository paths a file imports (relative imports only), resolved. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'/gm)].map((m) => path.join(path.dirname(file), m[1]!));
}

describe('layers', () => {
  it('nothing in the runtime below the host imports the host', () => {
    const offending = sources('runtime')
      .filter((file) => !file.startsWith(path.join('runtime', 'host') + path.sep))
      .flatMap((file) => importsOf(file).filter((target) => target.startsWith(path.join('runtime', 'host') + path.sep)).map((target) => `${file} -> ${target}`));
    expect(offending).toEqual([]);
  });

  it('the runtime never imports the generator', () => {
    const offending = sources('runtime').flatMap((file) => importsOf(file).filter((target) => target.startsWith('generator' + path.sep)).map((target) => `${file} -> ${target}`));
    expect(offending).toEqual([]);
  });

  it('no test level imports another level: what two levels share lives in test/helpers', () => {
    const levels = ['unit', 'integration', 'e2e', 'blackbox', 'hardening'].map((level) => path.join('test', level) + path.sep);
    const levelOf = (file: string): string | undefined => levels.find((level) => file.startsWith(level));
    const offending = sources('test').flatMap((file) => importsOf(file)
      .filter((target) => levelOf(target) !== undefined && levelOf(target) !== levelOf(file))
      .map((target) => `${file} -> ${target}`));
    expect(offending).toEqual([]);
  });

  it('finds the imports it checks', () => {
    expect(importsOf(path.join('runtime', 'host', 'start.ts'))).toContain(path.join('runtime', 'host', 'pools.js'));
  });
});

/**
 * The floors of docs/architecture.md, lowest first. A room is a folder (`runtime/auth`) or a file at a
 * root (`runtime/config.ts`); a module may value-import its own room and any room on a lower floor,
 * never one on its own floor (sideways) or above (upward). Type-only imports may cross: a type is
 * a contract, nothing loads. A room not listed fails the test, so a new folder is given its floor.
 */
const floors: readonly (readonly string[])[] = [
  // Traces: the transaction's and the outbound calls' spans are made in the leaves.
  ['runtime/tracing.ts'],
  // Leaves: PostgreSQL connections and transactions, HTTP bodies and replies, mail, metrics.
  ['runtime/coded-error.ts', 'runtime/env.ts', 'runtime/metrics.ts', 'runtime/db', 'runtime/http', 'runtime/mail'],
  ['runtime/config-error.ts', 'runtime/sealed-value.ts', 'runtime/generated-files.ts', 'runtime/outbound'],
  // What the registry stores and the APIs read: settings' kinds, tokens and keys, gantry.toml; the logger.
  ['runtime/config-file.ts', 'runtime/settings', 'runtime/tokens', 'runtime/logger.ts'],
  ['runtime/platform'],
  // The APIs, side by side: none imports another.
  ['runtime/rest', 'runtime/auth', 'runtime/calls'],
  // What stands on the data API: projects' own code, the docs.
  ['runtime/extensions', 'runtime/docs'],
  // Runtime's top: the package's entry for generated code, the environment, the host.
  ['runtime/index.ts', 'runtime/config.ts', 'runtime/host'],
  ['generator/model', 'generator/line-diff.ts', 'generator/git', 'generator/command-error.ts'],
  ['generator/emit', 'generator/introspect', 'generator/migrations', 'generator/init'],
  ['generator/write.ts', 'generator/api-diff', 'generator/extension-sql'],
  ['generator/generate.ts'],
  ['generator/settings'],
  ['generator/check'],
  // The composition root: the CLI wires the generator, the platform and the host.
  ['cli'],
];

function roomOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'cli') return 'cli';
  return parts.length > 2 ? parts.slice(0, 2).join('/') : file;
}

const floorOf = new Map(floors.flatMap((rooms, floor) => rooms.map((room) => [room, floor] as const)));

describe('floors', () => {
  const files = sourceFiles(['runtime', 'generator', 'cli']);
  const graph = importGraph(files);

  it('gives every room of the runtime and the generator a floor', () => {
    expect([...new Set(files.map(roomOf))].filter((room) => !floorOf.has(room))).toEqual([]);
  });

  it('has no import cycle of value imports', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('imports only downward: no value import sideways or up a floor', () => {
    const offending = [...graph].flatMap(([file, targets]) => targets
      .filter((target) => roomOf(target) !== roomOf(file) && floorOf.get(roomOf(target))! >= floorOf.get(roomOf(file))!)
      .map((target) => `${file} -> ${target}`));
    expect(offending).toEqual([]);
  });

  it('only the CLI imports the host', () => {
    const offending = [...graph].flatMap(([file, targets]) => targets
      .filter((target) => roomOf(target) === 'runtime/host' && roomOf(file) !== 'runtime/host' && roomOf(file) !== 'cli')
      .map((target) => `${file} -> ${target}`));
    expect(offending).toEqual([]);
  });

  it('counts what loads and leaves out what only types', () => {
    const text = [
      "import type { A } from './a.js';",
      "import { type B, type C } from './b.js';",
      "export type { D } from './d.js';",
      "import { e, type E } from './e.js';",
      "import './f.js';",
      "export { g } from './g.js';",
      "const h = await import('./h.js');",
      "import pg from 'pg';",
    ].join('\n');
    expect(valueSpecifiers(text)).toEqual(['./e.js', './f.js', './g.js', './h.js']);
  });

  it('finds a cycle', () => {
    expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c']]);
  });
});
