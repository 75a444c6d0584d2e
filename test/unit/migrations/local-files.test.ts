import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  assertMigrationName,
  listLocalMigrations,
  migrationChecksum,
  migrationNameFrom,
  nextVersions,
  parseMigrationFileName,
  readSeed,
  versionOf,
  writeMigration,
} from '../../../generator/migrations/local-files.js';
import { migrationStatus } from '../../../generator/migrations/status.js';

describe('migration file names', () => {
  it('reads <14-digit version>_<name>.sql, as the Supabase CLI writes them, and nothing else', () => {
    expect(parseMigrationFileName('20240102030405_create-users.sql')).toEqual({ version: '20240102030405', name: 'create-users' });
    expect(parseMigrationFileName('20240102030405_add_stock.v2.sql')).toEqual({ version: '20240102030405', name: 'add_stock.v2' });
    expect(parseMigrationFileName('001_init.sql')).toBeNull();
    expect(parseMigrationFileName('20240102030405.sql')).toBeNull();
    expect(parseMigrationFileName('20240102030405_add stock.sql')).toBeNull();
    expect(parseMigrationFileName('seed.sql')).toBeNull();
  });

  it('names a copied file after its base name', () => {
    expect(migrationNameFrom('/tmp/x/Add Stock!.sql')).toBe('add_stock');
    expect(migrationNameFrom('schema.SQL')).toBe('schema');
    expect(migrationNameFrom('---.sql')).toBe('migration');
    expect(migrationNameFrom(`${'x'.repeat(300)}.sql`)).toBe('x'.repeat(200));
  });

  it('takes a name of up to 200 letters, digits, "_", "-" and "." starting with a letter or digit', () => {
    expect(() => assertMigrationName('a'.repeat(200))).not.toThrow();
    expect(() => assertMigrationName('Add_stock.v2-b')).not.toThrow();
    for (const bad of ['a'.repeat(201), '', '_x', '.x', 'a b', '../x', 'a/b', 'ü', 'a\nb']) {
      expect(() => assertMigrationName(bad), bad).toThrow(expect.objectContaining({ code: 'invalid_migration_name' }));
    }
  });
});

describe('versions', () => {
  it('is the UTC second of a moment', () => {
    expect(versionOf(new Date('2026-11-26T17:04:05.678Z'))).toBe('20261126170405');
  });

  it('counts on from now, one second apart, and always after the latest existing version', () => {
    const now = new Date('2026-11-26T17:04:05.678Z');
    expect(nextVersions(now, [], 3)).toEqual(['20261126170405', '20261126170406', '20261126170407']);
    expect(nextVersions(now, ['20200101000000'], 1)).toEqual(['20261126170405']);
    expect(nextVersions(now, ['20261126170405', '20261126170400'], 2)).toEqual(['20261126170406', '20261126170407']);
    expect(nextVersions(now, ['20261231235959'], 1)).toEqual(['20270101000000']);
  });
});

describe('migrationChecksum', () => {
  it('is the SHA-256 of the text, CRLF read as LF', () => {
    expect(migrationChecksum('select 1;\n')).toBe('4a45092ccf992ea92250053a80b931b787924ba61648f420555511b84f10ab6c');
    expect(migrationChecksum('select 1;\r\n')).toBe(migrationChecksum('select 1;\n'));
    expect(migrationChecksum('select 1;\n')).not.toBe(migrationChecksum('select 1; -- x\n'));
  });
});

describe('listLocalMigrations', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-migrations-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('lists the files of migrations/<ref>/ in version order, without seed.sql or other files', async () => {
    await fs.mkdir(path.join(dir, 'shop'));
    await fs.writeFile(path.join(dir, 'shop', '20240201000000_second.sql'), 'create table b ();\n');
    await fs.writeFile(path.join(dir, 'shop', '20240101000000_first.sql'), 'create table a ();\n');
    await fs.writeFile(path.join(dir, 'shop', 'seed.sql'), 'insert into a default values;\n');
    await fs.writeFile(path.join(dir, 'shop', 'README.md'), 'notes\n');
    expect(await listLocalMigrations(dir, 'shop')).toEqual([
      { version: '20240101000000', name: 'first', path: path.join(dir, 'shop', '20240101000000_first.sql'), sql: 'create table a ();\n', checksum: migrationChecksum('create table a ();\n') },
      { version: '20240201000000', name: 'second', path: path.join(dir, 'shop', '20240201000000_second.sql'), sql: 'create table b ();\n', checksum: migrationChecksum('create table b ();\n') },
    ]);
    expect(await readSeed(dir, 'shop')).toBe('insert into a default values;\n');
    expect(await readSeed(dir, 'none')).toBeNull();
    expect(await listLocalMigrations(dir, 'none')).toEqual([]);
  });

  it('refuses a misnamed .sql file and two files of one version', async () => {
    await fs.mkdir(path.join(dir, 'shop'));
    await fs.writeFile(path.join(dir, 'shop', 'add_stock.sql'), '');
    await expect(listLocalMigrations(dir, 'shop')).rejects.toMatchObject({ code: 'invalid_migration_name' });
    await fs.rm(path.join(dir, 'shop', 'add_stock.sql'));
    await fs.writeFile(path.join(dir, 'shop', '20240101000000_a.sql'), '');
    await fs.writeFile(path.join(dir, 'shop', '20240101000000_b.sql'), '');
    await expect(listLocalMigrations(dir, 'shop')).rejects.toMatchObject({ code: 'duplicate_migration_version' });
  });

  it('writes a new file but never over an existing one', async () => {
    const written = await writeMigration(dir, 'shop', '20240101000000', 'init', 'select 1;\n');
    expect(await listLocalMigrations(dir, 'shop')).toEqual([written]);
    await expect(writeMigration(dir, 'shop', '20240101000000', 'init', '')).rejects.toMatchObject({ code: 'migration_exists' });
    await expect(writeMigration(dir, 'shop', '20240101000001', 'bad name', '')).rejects.toMatchObject({ code: 'invalid_migration_name' });
  });
});

describe('migrationStatus', () => {
  const file = (version: string, checksum: string) => ({ version, name: `m${version}`, path: `/m/${version}.sql`, sql: '', checksum });
  const row = (version: string, checksum: string | null) => ({ version, name: `m${version}`, checksum, appliedAt: new Date(0) });

  it('classes each version as applied, pending, modified or missing-locally', () => {
    const status = migrationStatus(
      [file('20240101000000', 'a'), file('20240102000000', 'b'), file('20240103000000', 'c'), file('20240105000000', 'e')],
      [row('20240101000000', 'a'), row('20240102000000', 'B'), row('20240104000000', 'd'), row('20240105000000', null)],
    );
    expect(status.map((s) => [s.version, s.state])).toEqual([
      ['20240101000000', 'applied'],
      ['20240102000000', 'modified'],
      ['20240103000000', 'pending'],
      ['20240104000000', 'missing-locally'],
      ['20240105000000', 'applied'],
    ]);
    expect(status[1]).toEqual({ version: '20240102000000', name: 'm20240102000000', state: 'modified', appliedAt: new Date(0), localChecksum: 'b', appliedChecksum: 'B' });
    expect(status[2]).toMatchObject({ appliedAt: null, appliedChecksum: null, localChecksum: 'c' });
  });
});
