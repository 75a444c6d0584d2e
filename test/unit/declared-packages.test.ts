import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repositoryRoot, sourceFiles } from '../helpers/import-graph.js';

const manifest = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The package a bare specifier names (`@scope/name/sub` -> `@scope/name`), or null for a relative path or a builtin. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!)) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

function specifiersOf(file: string): string[] {
  const text = fs.readFileSync(path.join(repositoryRoot, file), 'utf8');
  return ts.preProcessFile(text, true, true).importedFiles.map((imported) => imported.fileName);
}

describe('declared packages', () => {
  const files = sourceFiles(['cli', 'runtime', 'generator', 'test', 'bench']);
  const used = new Set(files.flatMap(specifiersOf).map(packageOf).filter((name): name is string => name !== null));

  it('declares every package the code and the tests import', () => {
    const declared = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.devDependencies), 'gantry']);
    expect([...used].filter((name) => !declared.has(name)).sort()).toEqual([]);
  });

  it('declares no audio decoder nothing imports', () => {
    expect(Object.keys(manifest.dependencies).filter((name) => name.startsWith('@audio/') && !used.has(name))).toEqual([]);
  });
});
