import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

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

  it('finds the imports it checks', () => {
    expect(importsOf(path.join('runtime', 'host', 'start.ts'))).toContain(path.join('runtime', 'host', 'pools.js'));
  });
});
