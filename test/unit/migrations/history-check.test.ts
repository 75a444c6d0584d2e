import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { checkHistory, type HistoryInput } from '../../../generator/migrations/history-check.js';
import { migrationChecksum, type LocalMigration } from '../../../generator/migrations/local-files.js';
import { formatSum, parseSum } from '../../../generator/migrations/sum-file.js';

const migration = (version: string, name: string, sql: string): LocalMigration => ({
  version,
  name,
  path: `/repo/migrations/shop/${version}_${name}.sql`,
  sql,
  checksum: migrationChecksum(sql),
});

const one = migration('20260101000000', 'init', 'CREATE TABLE a (id int);\n');
const two = migration('20260102000000', 'b', 'CREATE TABLE b (id int);\n');
const three = migration('20260103000000', 'c', 'CREATE TABLE c (id int);\n');
const base = { label: 'main', commit: 'a'.repeat(40), sum: formatSum([one, two]) };
const input = (over: Partial<HistoryInput>): HistoryInput => ({
  ref: 'shop',
  folder: 'migrations/shop',
  local: [one, two],
  sum: formatSum([one, two]),
  base,
  now: new Date(Date.UTC(2026, 5, 1, 12, 0, 0)),
  ...over,
});

describe('gantry.sum', () => {
  it('is a header and one "<version> <name> <sha256>" line per migration, in version order, and reads back', () => {
    const text = formatSum([two, one]);
    expect(text.split('\n')).toEqual([
      expect.stringMatching(/^# gantry\.sum: /),
      `20260101000000 init ${one.checksum}`,
      `20260102000000 b ${two.checksum}`,
      '',
    ]);
    expect(parseSum(text)).toEqual({ entries: [one, two].map(({ version, name, checksum }) => ({ version, name, checksum })), errors: [] });
    expect(parseSum('<<<<<<< HEAD\n').errors).toEqual([{ line: 1, text: '<<<<<<< HEAD' }]);
  });

  it('two branches that each add a line merge without a conflict under merge=union, and the result checks clean', async () => {
    const repo = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-sum-'));
    const git = (...args: string[]) => promisify(execFile)('git', ['-C', repo, ...args]);
    try {
      await git('init', '-q', '-b', 'main');
      await git('config', 'user.email', 't@example.com');
      await git('config', 'user.name', 'T');
      await fs.writeFile(path.join(repo, '.gitattributes'), 'migrations/*/gantry.sum merge=union\n');
      await fs.mkdir(path.join(repo, 'migrations/shop'), { recursive: true });
      const sum = path.join(repo, 'migrations/shop/gantry.sum');
      await fs.writeFile(sum, formatSum([one]));
      await git('add', '-A');
      await git('commit', '-qm', 'one');
      await git('checkout', '-qb', 'other');
      await fs.writeFile(sum, formatSum([one, three]));
      await git('commit', '-qam', 'three');
      await git('checkout', '-q', 'main');
      await fs.writeFile(sum, formatSum([one, two]));
      await git('commit', '-qam', 'two');
      await git('merge', '-q', 'other', '-m', 'merge');
      const merged = await fs.readFile(sum, 'utf8');
      expect(merged).not.toContain('<<<<<<<');
      expect(checkHistory(input({ local: [one, two, three], sum: merged, base: null }))).toEqual([]);
    } finally {
      await fs.rm(repo, { recursive: true, force: true });
    }
  });
});

describe('checkHistory', () => {
  it('finds nothing wrong with a branch that adds a newer migration and records it', () => {
    expect(checkHistory(input({ local: [one, two, three], sum: formatSum([one, two, three]) }))).toEqual([]);
  });

  it('reports a migration the base holds that was edited, even when gantry.sum was rewritten to match', () => {
    const edited = { ...two, sql: 'CREATE INDEX ON a (id);\n', checksum: migrationChecksum('CREATE INDEX ON a (id);\n') };
    expect(checkHistory(input({ local: [one, edited], sum: formatSum([one, edited]) }))).toEqual([
      {
        kind: 'edited',
        version: two.version,
        message: 'migrations/shop/20260102000000_b.sql: edited since main recorded it in gantry.sum',
        remedy: `restore it: git checkout ${'a'.repeat(12)} -- migrations/shop/20260102000000_b.sql; a change to a merged migration goes in a new one: npx gantry migration new shop NAME`,
      },
    ]);
  });

  it('reports a removed and a renumbered migration of the base', () => {
    const moved = { ...two, version: '20260104000000', path: '/repo/migrations/shop/20260104000000_b.sql' };
    expect(checkHistory(input({ local: [moved], sum: formatSum([moved]) })).map((p) => [p.kind, p.message, p.remedy])).toEqual([
      ['removed', 'migrations/shop/20260101000000_init.sql: on main, removed here', expect.stringMatching(/^restore it: git checkout a{12} -- migrations\/shop\/20260101000000_init\.sql;/)],
      ['renamed', 'migrations/shop/20260104000000_b.sql: 20260102000000_b.sql on main, moved to another version', 'give it back its version: git mv migrations/shop/20260104000000_b.sql migrations/shop/20260102000000_b.sql'],
    ]);
  });

  it('reports a migration new since the base but older than its newest, with a later version to take', () => {
    const late = migration('20260101120000', 'late', 'CREATE TABLE late (id int);\n');
    const local = [one, late, two];
    expect(checkHistory(input({ local, sum: formatSum(local) }))).toEqual([
      {
        kind: 'out_of_order',
        version: late.version,
        message:
          "migrations/shop/20260101120000_late.sql: older than 20260102000000_b.sql, the newest migration on main: a database that ran main's would run it after newer ones, a fresh one before them",
        remedy: 'give it a later version: git mv migrations/shop/20260101120000_late.sql migrations/shop/20260601120000_late.sql && npx gantry gen shop --from-migrations',
      },
    ]);
  });

  it('without a base, compares gantry.sum with the folder: an edited, an unlisted and a vanished file', () => {
    const edited = { ...one, checksum: migrationChecksum('changed') };
    const problems = checkHistory(input({ local: [edited, three], sum: formatSum([one, two]), base: null }));
    expect(problems.map((p) => [p.kind, p.message])).toEqual([
      ['sum_stale', 'migrations/shop/20260101000000_init.sql: differs from its line in gantry.sum'],
      ['sum_stale', 'migrations/shop/20260103000000_c.sql: not in gantry.sum'],
      ['sum_stale', 'migrations/shop/20260102000000_b.sql: in gantry.sum, no such file'],
    ]);
    expect(problems[0]!.remedy).toBe('if it is new on this branch, record it: npx gantry gen shop --from-migrations; a migration already merged must not change: restore it and add a new one');
  });

  it('reports a missing file, conflict markers and two lines for one version', () => {
    expect(checkHistory(input({ sum: null, base: null }))).toEqual([
      { kind: 'sum_missing', version: null, message: 'migrations/shop/gantry.sum: missing', remedy: 'write it: npx gantry gen shop --from-migrations' },
    ]);
    const conflicted = `${formatSum([one, two])}<<<<<<< HEAD\n${two.version} b ${migrationChecksum('x')}\n`;
    expect(checkHistory(input({ sum: conflicted, base: null })).map((p) => [p.kind, p.message])).toEqual([
      ['sum_unreadable', 'migrations/shop/gantry.sum:4: not "<version> <name> <sha256>": <<<<<<< HEAD'],
      ['sum_duplicate', 'migrations/shop/gantry.sum: two lines for version 20260102000000 (two branches changed it)'],
      ['sum_stale', 'migrations/shop/20260102000000_b.sql: differs from its line in gantry.sum'],
    ]);
  });
});
