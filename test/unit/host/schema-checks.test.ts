import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkCarriesOver, checkHolds, SchemaCheckStore, type SchemaCheck } from '../../../runtime/host/schema-checks.js';

const check: SchemaCheck = { version: '7712441069685809220:16384:12/true', schemas: ['public'], fingerprint: 'f'.repeat(64) };
const live = { version: check.version, schemas: ['public'] };

describe('checkHolds', () => {
  it('holds for the same database, version and schemas with the checked code on disk', () => {
    expect(checkHolds(check, live, check.fingerprint)).toBe(true);
  });

  it('does not hold without a check, or when the code on disk is missing or another', () => {
    expect(checkHolds(null, live, check.fingerprint)).toBe(false);
    expect(checkHolds(check, live, null)).toBe(false);
    expect(checkHolds(check, live, 'e'.repeat(64))).toBe(false);
  });

  it('does not hold when the version, the database it names or the exposed schemas differ', () => {
    expect(checkHolds(check, { ...live, version: '7712441069685809220:16384:13/true' }, check.fingerprint)).toBe(false);
    // The same sequence value in a database created again under the same name (another OID), or in another cluster.
    expect(checkHolds(check, { ...live, version: '7712441069685809220:16999:12/true' }, check.fingerprint)).toBe(false);
    expect(checkHolds(check, { ...live, version: '7712441069685800000:16384:12/true' }, check.fingerprint)).toBe(false);
    expect(checkHolds(check, { ...live, schemas: ['public', 'api'] }, check.fingerprint)).toBe(false);
    expect(checkHolds(check, { ...live, schemas: ['api'] }, check.fingerprint)).toBe(false);
  });
});

describe('checkCarriesOver', () => {
  const moved = { version: '9912441069685809220:16999:12/true', schemas: ['public'] };

  it('carries a check over to the database a move copied the DDL counter to, with the checked code on disk', () => {
    expect(checkCarriesOver(check, moved, check.fingerprint)).toBe(true);
  });

  it('does not when the counter moved on (DDL since, or the move bumped it), the schemas differ, or the code on disk is not the checked one', () => {
    expect(checkCarriesOver(check, { ...moved, version: '9912441069685809220:16999:13/true' }, check.fingerprint)).toBe(false);
    expect(checkCarriesOver(check, { ...moved, version: '9912441069685809220:16999:12/false' }, check.fingerprint)).toBe(false);
    expect(checkCarriesOver(check, { ...moved, schemas: ['api'] }, check.fingerprint)).toBe(false);
    expect(checkCarriesOver(check, moved, 'e'.repeat(64))).toBe(false);
    expect(checkCarriesOver(null, moved, check.fingerprint)).toBe(false);
  });
});

describe('SchemaCheckStore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'schema-checks-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('keeps a check per project across instances, and forgets a removed one', async () => {
    const store = new SchemaCheckStore(path.join(dir, 'checks'));
    expect(await store.get('shop')).toBeNull();
    await store.set('shop', check);
    await store.set('blog', { ...check, version: ':16385:3/true' });
    expect(await new SchemaCheckStore(path.join(dir, 'checks')).get('shop')).toEqual(check);
    await store.remove('shop');
    await store.remove('shop');
    expect(await store.get('shop')).toBeNull();
    expect(await store.get('blog')).toEqual({ ...check, version: ':16385:3/true' });
    // Written aside and renamed: nothing else is left in the folder.
    expect((await fs.readdir(path.join(dir, 'checks'))).sort()).toEqual(['blog.json']);
  });

  it('reads a truncated or foreign file as no check', async () => {
    const store = new SchemaCheckStore(dir);
    await fs.writeFile(path.join(dir, 'shop.json'), '{"version":":1:2/true","sche');
    await fs.writeFile(path.join(dir, 'blog.json'), JSON.stringify({ ...check, schemas: 'public' }));
    expect(await store.get('shop')).toBeNull();
    expect(await store.get('blog')).toBeNull();
  });

  it('takes project refs only as file names', async () => {
    const store = new SchemaCheckStore(path.join(dir, 'checks'));
    await expect(store.set('../escape', check)).rejects.toThrow(RangeError);
    await expect(store.get('a/b')).rejects.toThrow(RangeError);
    await expect(fs.readdir(dir)).resolves.toEqual([]);
  });
});
