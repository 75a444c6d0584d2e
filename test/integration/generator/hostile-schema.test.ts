import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitProject } from '../../../generator/emit/project.js';
import { IntrospectionError } from '../../../generator/introspect/errors.js';
import { introspectProject } from '../../../generator/introspect/introspect.js';
import { canonicalJson } from '../../../generator/model/fingerprint.js';
import { functionMeta, tableMeta } from '../../../generator/model/project-meta.js';
import { buildRelationships } from '../../../generator/model/relationships.js';
import type { RelationModel, SchemaModel } from '../../../generator/model/types.js';
import { writeGenerated } from '../../../generator/write.js';
import { formatterChanges } from '../../helpers/formatter.js';
import { createThrowawayDatabase, repoRoot, type ThrowawayDatabase } from './throwaway-database.js';

const hostile = 'test/fixtures/schemas/hostile.sql';

async function introspect(db: ThrowawayDatabase, schemas = ['public']): Promise<SchemaModel> {
  const client = await db.connect();
  try {
    return await introspectProject(client, { schemas });
  } finally {
    await client.end();
  }
}

function relation(model: SchemaModel, name: string): RelationModel {
  const found = model.relations.find((r) => r.schema === 'public' && r.name === name);
  if (!found) throw new Error(`no relation ${name}`);
  return found;
}

describe('generator on the hostile schema', () => {
  let db: ThrowawayDatabase;
  let model: SchemaModel;

  beforeAll(async () => {
    db = await createThrowawayDatabase([hostile]);
    model = await introspect(db);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('reads relations of the exposed schema only, sorted by code point', () => {
    expect(model.schemas).toEqual(['public']);
    expect(model.relations.map((r) => `${r.kind}:${r.name}`)).toEqual([
      'table:123 weird-table.name',
      'table:USER',
      'table:User',
      'table:addresses',
      'table:con',
      'table:database.types',
      'table:empty',
      'table:event_notes',
      'table:events',
      'table:index',
      'view:open_orders',
      'view:open_orders_again',
      'table:order_items',
      'view:order_totals',
      'table:orders',
      'materialized_view:product_names',
      'table:products',
      'table:profiles',
      'table:regions',
      'table:select',
      'table:user',
      'table:user_settings',
    ]);
  });

  it('keeps partitions apart from the relations: typed as tables, not resources', () => {
    expect((model.partitions ?? []).map((r) => ({ kind: r.kind, name: r.name, columns: r.columns.map((c) => c.name), primaryKey: r.primaryKey, foreignKeys: r.foreignKeys })))
      .toEqual([{ kind: 'table', name: 'events_2026', columns: ['id', 'at'], primaryKey: { name: 'events_2026_pkey', columns: ['id', 'at'] }, foreignKeys: [] }]);
  });

  it('reads columns with types, defaults, identity and generation', () => {
    const user = relation(model, 'user');
    const col = (name: string) => user.columns.find((c) => c.name === name);
    expect(user.columns.map((c) => c.name)).toEqual([
      'id', 'order', 'class', '__proto__', 'Display Name', '2fa', 'email', 'mood', 'moods', 'tags',
      'matrix', 'profile', 'location', 'created_at', 'lower_email', 'balance', 'ip',
    ]);
    expect(col('id')).toMatchObject({ identity: 'always', nullable: false, default: null, generated: null });
    expect(col('lower_email')).toMatchObject({ generated: 'lower((email)::text)', default: null, nullable: true });
    expect(col('order')).toMatchObject({ default: '0', comment: 'Sort order', nullable: false });
    expect(col('Display Name')?.type.sql).toBe('character varying(80)');
    expect(col('email')?.type).toMatchObject({ sql: 'public.email', kind: 'domain', base: { name: 'text', kind: 'base' } });
    expect(col('moods')?.type).toMatchObject({ sql: 'public.mood[]', kind: 'array', element: { name: 'mood', kind: 'enum' } });
    expect(col('tags')?.type).toMatchObject({ kind: 'domain', base: { sql: 'text[]', kind: 'array' } });
    expect(col('location')?.type).toMatchObject({ sql: 'public.point2', kind: 'composite' });
    expect(col('balance')?.type.sql).toBe('numeric(12,2)');
    expect(user.comment).toBe('Users.\nSecond line of the comment.');
    expect(user.uniqueConstraints).toEqual([{ name: 'user_email_key', columns: ['email'] }]);
    expect(relation(model, 'products').columns.map((c) => c.name)).toEqual(['id', 'name', 'price']);
  });

  it('reads keys, composite and repeated foreign keys', () => {
    expect(relation(model, 'regions').primaryKey).toEqual({ name: 'regions_pkey', columns: ['country', 'code'] });
    expect(relation(model, 'addresses').foreignKeys).toEqual([
      {
        name: 'addresses_country_region_code_fkey',
        columns: ['country', 'region_code'],
        targetSchema: 'public',
        targetName: 'regions',
        targetColumns: ['country', 'code'],
        onUpdate: 'no action',
        onDelete: 'no action',
      },
    ]);
    expect(relation(model, 'event_notes').foreignKeys.map((f) => `${f.name}->${f.targetName}(${f.targetColumns})`)).toEqual([
      'event_notes_event_id_event_at_fkey->events(id,at)',
    ]);
    expect(relation(model, 'orders').foreignKeys.map((f) => `${f.name}:${f.columns}->${f.targetName}:${f.onDelete}`)).toEqual([
      'billing:billing_address_id->addresses:no action',
      'orders_parent_id_fkey:parent_id->orders:no action',
      'orders_shipping_address_id_fkey:shipping_address_id->addresses:no action',
      'orders_user_id_fkey:user_id->user:cascade',
    ]);
  });

  it('reads view lineage and updatability', () => {
    expect(relation(model, 'open_orders_again').columnSources).toEqual([
      { column: 'id', schema: 'public', table: 'orders', sourceColumn: 'id' },
      { column: 'buyer_id', schema: 'public', table: 'orders', sourceColumn: 'user_id' },
      { column: 'status', schema: 'public', table: 'orders', sourceColumn: 'status' },
    ]);
    expect(relation(model, 'order_totals').columnSources).toEqual([
      { column: 'user_id', schema: 'public', table: 'orders', sourceColumn: 'user_id' },
    ]);
    expect(relation(model, 'open_orders').updatable).toEqual({ insert: true, update: true, delete: true });
    expect(relation(model, 'order_totals').updatable).toEqual({ insert: false, update: false, delete: false });
    expect(relation(model, 'product_names').updatable).toEqual({ insert: false, update: false, delete: false });
  });

  it('reads RLS, policies and grants', () => {
    const orders = relation(model, 'orders');
    expect(orders.rls).toEqual({ enabled: true, forced: false });
    expect(orders.policies).toEqual([
      { name: 'insert_orders', command: 'INSERT', permissive: true, roles: ['anon', 'authenticated'], using: null, withCheck: '(total >= (0)::numeric)' },
      { name: 'own orders', command: 'SELECT', permissive: true, roles: ['authenticated'], using: '(user_id = 42)', withCheck: null },
    ]);
    expect(relation(model, 'user_settings').rls).toEqual({ enabled: true, forced: true });
    expect(relation(model, 'user_settings').policies[0]).toMatchObject({ name: 'everything', command: 'ALL', roles: ['public'] });
    expect(relation(model, 'regions').grants).toEqual({
      anon: { select: true, insert: false, update: false, delete: false },
      authenticated: { select: true, insert: true, update: true, delete: true },
      service_role: { select: true, insert: true, update: true, delete: true },
    });
  });

  it('reads functions with overloads, argument modes and return shapes; skips triggers', () => {
    expect(model.functions.map((f) => `${f.name}(${f.identityArguments})`)).toEqual([
      'Foo()',
      'add(a integer, b integer)',
      'add(a numeric, b numeric, c numeric)',
      'delete(id integer)',
      'echo(jsonb)',
      'first_order(uid bigint)',
      'foo()',
      'numbers(n integer)',
      'orders_of(uid bigint, lim integer)',
      'point_of(p public.point2)',
      'search("default" text, "case" integer)',
      'select(x integer)',
      'stats(OUT total bigint, OUT "Average" numeric)',
      'sum_all(VARIADIC nums integer[])',
      'touch()',
    ]);
    const fn = (name: string) => model.functions.find((f) => f.name === name);
    expect(fn('search')?.args.map((a) => `${a.mode}:${a.name}:${a.type.sql}:${a.hasDefault}`)).toEqual([
      'in:default:text:false',
      'in:case:integer:true',
      'table:id:bigint:false',
      'table:Match Score:real:false',
    ]);
    expect(fn('sum_all')?.args[0]).toMatchObject({ mode: 'variadic', name: 'nums', type: { sql: 'integer[]' } });
    expect(fn('orders_of')).toMatchObject({ returnsSet: true, volatility: 'stable', returnType: { sql: 'public.orders', kind: 'composite' } });
    expect(fn('delete')).toMatchObject({ securityDefiner: true, volatility: 'volatile', language: 'sql' });
    expect(fn('touch')).toMatchObject({ comment: 'Does nothing, loudly.', returnType: { name: 'void', kind: 'pseudo' } });
    expect(fn('echo')?.args[0]).toMatchObject({ name: '', mode: 'in' });
    expect(fn('add')?.execute).toEqual({ anon: true, authenticated: true, service_role: true });
  });

  it('reads enums in declaration order and composite types', () => {
    expect(model.enums).toEqual([
      { schema: 'public', name: 'Order Status', values: ['new', 'shipped'], comment: null },
      { schema: 'public', name: 'mood', values: ['happy', 'sad', 'it\'s "complicated"'], comment: null },
      { schema: 'public', name: 'nothing', values: [], comment: null },
    ]);
    expect(model.compositeTypes.map((c) => [c.name, c.attributes.map((a) => `${a.name}:${a.type.sql}`), c.comment])).toEqual([
      ['point2', ['x:double precision', 'y:double precision', 'label text:text'], 'A point */ with a comment terminator'],
    ]);
  });

  it('derives the runtime metadata of functions: return kinds, relations and columns', () => {
    const meta = (name: string) => model.functions.filter((f) => f.name === name).map((f) => functionMeta(model, f));
    const shape = (name: string) =>
      meta(name).map((m) => `${m.returnKind}${m.returnsSet ? '[]' : ''}:${m.returnType}:${m.returnRelation?.name ?? '-'}:${m.returnColumns.map((c) => `${c.name} ${c.pgType}`).join(',')}`);
    expect(shape('add')).toEqual(['scalar:integer:-:', 'scalar:numeric:-:']);
    expect(shape('numbers')).toEqual(['scalar[]:integer:-:']);
    // Unnamed integer parameters: PostgREST cannot call it, so it is not in the model at all.
    expect(shape('unnamed_pair')).toEqual([]);
    expect(shape('touch')).toEqual(['void:void:-:']);
    expect(shape('echo')).toEqual(['scalar:jsonb:-:']);
    expect(shape('delete')).toEqual(['scalar:public.mood:-:']);
    expect(shape('stats')).toEqual(['composite:record:-:total bigint,Average numeric']);
    expect(shape('search')).toEqual(['composite[]:record:-:id bigint,Match Score real']);
    expect(shape('point_of')).toEqual(['composite:public.point2:-:x double precision,y double precision,label text text']);
    expect(shape('first_order')[0]).toMatch(/^composite:public\.orders:orders:id bigint,user_id bigint,/);
    expect(meta('orders_of')[0]).toMatchObject({
      returnsSet: true,
      volatility: 'stable',
      args: [
        { name: 'uid', pgType: 'bigint', hasDefault: false, variadic: false },
        { name: 'lim', pgType: 'integer', hasDefault: true, variadic: false },
      ],
    });
    expect(meta('sum_all')[0]?.args).toEqual([{ name: 'nums', pgType: 'integer[]', hasDefault: false, variadic: true }]);
    expect(meta('delete')[0]).toMatchObject({ securityDefiner: true, volatility: 'volatile' });
  });

  it('derives the runtime metadata of tables and views', () => {
    const relationships = buildRelationships(model);
    expect(relation(model, 'profiles').foreignKeys.map((f) => `${f.targetSchema}.${f.targetName}`)).toEqual(['auth.users']);
    expect(relationships.get('public.profiles')).toEqual([]);
    const meta = (name: string) => tableMeta(model, relation(model, name), relationships.get(`public.${name}`) ?? []);
    const user = meta('user');
    expect(user.columns.find((c) => c.name === 'tags')).toMatchObject({ pgType: 'public.tags', baseType: 'text[]', elementType: 'text', enumValues: null });
    expect(user.columns.find((c) => c.name === 'mood')).toMatchObject({ pgType: 'public.mood', enumValues: ['happy', 'sad', 'it\'s "complicated"'] });
    expect(user.columns.find((c) => c.name === 'lower_email')).toMatchObject({ generated: true, default: null });
    expect(user.uniqueKeys).toEqual([['email']]);
    expect(meta('order_totals').grants.anon).toEqual({ select: true, insert: false, update: false, delete: false });
    expect(meta('open_orders').grants.anon).toEqual({ select: true, insert: true, update: true, delete: true });
    expect(meta('user_settings').relations).toEqual([
      { kind: 'one-to-one', targetSchema: 'public', targetName: 'user', constraint: 'user_settings_user_id_fkey', join: { from: ['user_id'], to: ['id'] }, junction: null },
    ]);
    // As PostgREST: order_items also joins products to the views over orders.
    expect(meta('products').relations.map((r) => `${r.kind} ${r.targetName} ${r.junction?.name ?? r.constraint}`)).toEqual([
      'many-to-many open_orders order_items',
      'many-to-many open_orders_again order_items',
      'one-to-many order_items order_items_product_id_fkey',
      'many-to-many orders order_items',
    ]);
  });

  it('refuses schemas that must never be exposed and ones that do not exist', async () => {
    const client = await db.connect();
    try {
      await expect(introspectProject(client, { schemas: ['public', 'auth'] })).rejects.toMatchObject({ code: 'forbidden_schema' });
      await expect(introspectProject(client, { schemas: ['pg_catalog'] })).rejects.toBeInstanceOf(IntrospectionError);
      await expect(introspectProject(client, { schemas: ['nope'] })).rejects.toMatchObject({ code: 'missing_schema' });
      const privateModel = await introspectProject(client, { schemas: ['private'] });
      expect(privateModel.relations.map((r) => r.name)).toEqual(['secrets']);
    } finally {
      await client.end();
    }
  });

  it('is deterministic: same bytes on a second run and from a second database with other OIDs', async () => {
    const again = await introspect(db);
    expect(canonicalJson(again)).toBe(canonicalJson(model));
    const other = await createThrowawayDatabase([
      // Different OIDs for everything: create and drop unrelated objects first.
      'test/fixtures/schemas/oid-shift.sql',
      hostile,
    ]);
    try {
      const otherModel = await introspect(other);
      const first = emitProject(model, { ref: 'hostile' });
      const second = emitProject(otherModel, { ref: 'hostile' });
      expect([...second.keys()]).toEqual([...first.keys()]);
      for (const [file, text] of first) expect(second.get(file), file).toBe(text);
    } finally {
      await other.drop();
    }
  });

  it('emits files that typecheck under the strict tsconfig, including supabase-js usage', async () => {
    // Two exposed schemas: the second one's modules get schema-qualified file names.
    const files = emitProject(await introspect(db, ['public', 'private']), { ref: 'hostile' });
    expect(formatterChanges(files)).toEqual([]);
    // A column's comment is the JSDoc of its Row field, stated once, in database.types.ts, which tables/<t>.ts indexes.
    expect(files.get('database.types.ts')).toContain('          /** Sort order */\n          order: number;\n');
    expect(files.get('tables/user.ts')).toContain('export type Row = Database["public"]["Tables"]["user"]["Row"];\n');
    expect([...files.keys()].filter((file) => file.includes('secrets'))).toEqual([
      expect.stringMatching(/^tables\/private_secrets-[0-9a-f]{8}\.ts$/),
    ]);
    // Two levels below the repository like generated/<ref>/ (so the runtime imports resolve), but
    // outside generated/ so the whole-repository typecheck never sees a half-written tree.
    const dir = path.join(repoRoot, 'test-output', `generator-${randomBytes(4).toString('hex')}`);
    try {
      await writeGenerated(dir, files, { check: false });
      await fs.copyFile(path.join(repoRoot, 'test/fixtures/schemas/hostile-client.ts.txt'), path.join(dir, 'client-usage.ts'));
      await fs.writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../../tsconfig.json', include: ['.'] }));
      const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
      const result = await promisify(execFile)(process.execPath, [tsc, '--noEmit', '-p', path.join(dir, 'tsconfig.json')]).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
      );
      expect(result).toEqual({ code: 0, stdout: '' });
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('rewrites exactly the affected modules after a migration', async () => {
    const before = emitProject(model, { ref: 'hostile' });
    const client = await db.connect();
    try {
      await client.query(`ALTER TABLE public.products ADD COLUMN sku text; ALTER TYPE public.mood ADD VALUE 'calm'`);
    } finally {
      await client.end();
    }
    const after = emitProject(await introspect(db), { ref: 'hostile' });
    const changed = [...after].filter(([file, text]) => before.get(file) !== text).map(([file]) => file);
    // A module is rewritten only when its own text changes (the fingerprint lives in schema.json alone): the enum's new
    // value shows in products' and user's modules, not in rpc/delete.ts, which names the type without its values.
    expect(changed.filter((file) => file.includes('/'))).toEqual(['tables/products.ts', 'tables/user.ts']);
    // index.ts and relations.ts name no column nor enum value: they stay as they were.
    expect(changed).toEqual(['api.d.ts', 'database.types.ts', 'openapi.json', 'schema.json', 'tables/products.ts', 'tables/user.ts']);
  });
});
