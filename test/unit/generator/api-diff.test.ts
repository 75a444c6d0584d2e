import { describe, expect, it } from 'vitest';
import type { ApiChange } from '../../../generator/api-diff/api-change.js';
import { apiReport } from '../../../generator/api-diff/api-report.js';
import { diffApi, emptyApiDescription } from '../../../generator/api-diff/diff-api.js';
import { describeChanges } from '../../../generator/api-diff/make-report.js';
import { parseSquawkReport } from '../../../generator/api-diff/migration-lint.js';
import { renderMarkdown } from '../../../generator/api-diff/render-markdown.js';
import { renderText } from '../../../generator/api-diff/render-text.js';
import type { FunctionArgModel, FunctionModel, PolicyModel } from '../../../generator/model/types.js';
import { column, fk, int4, model, table, text, type } from './model-fixtures.js';

const numeric = type('numeric');
const int8 = type('int8');
const sqlType = (sql: string, name: string) => ({ ...type(name), sql });

/** The kind, severity and target of each change: what most tests assert. */
function summary(changes: readonly ApiChange[]): string[] {
  return changes.map((c) => `${c.severity} ${c.kind} ${c.target}`);
}

describe('diffApi: columns', () => {
  const base = model([table('items', { columns: [column('id', int4), column('price', numeric), column('note', text, { nullable: true })] })]);

  it('a dropped column is breaking, with its definition', () => {
    const head = model([table('items', { columns: [column('id', int4), column('price', numeric)] })]);
    expect(diffApi(base, head)).toEqual([
      {
        kind: 'column_removed',
        severity: 'breaking',
        target: 'public.items.note',
        message: 'column removed',
        reason: 'a request that names it now fails (42703), and select=* answers without it',
        before: 'note text',
        after: null,
      },
    ]);
  });

  it('an added nullable column, or NOT NULL with a default, is compatible; NOT NULL without a default is breaking', () => {
    const head = model([
      table('items', {
        columns: [
          ...base.relations[0]!.columns,
          column('colour', text, { nullable: true }),
          column('stock', int4, { default: '0' }),
          column('sku', text),
        ],
      }),
    ]);
    expect(summary(diffApi(base, head))).toEqual([
      'compatible column_added public.items.colour',
      'compatible column_added public.items.stock',
      'breaking column_added public.items.sku',
    ]);
    expect(diffApi(base, head)[2]).toMatchObject({ message: 'column added: NOT NULL without a default', after: 'sku text NOT NULL' });
  });

  it('numeric → integer is breaking though TypeScript says number on both sides; widenings are compatible', () => {
    const head = model([table('items', { columns: [column('id', int8), column('price', int4), column('note', text, { nullable: true })] })]);
    const changes = diffApi(base, head);
    expect(summary(changes)).toEqual(['compatible column_type_changed public.items.id', 'breaking column_type_changed public.items.price']);
    expect(changes[1]).toMatchObject({ message: 'type numeric → int4', before: 'price numeric NOT NULL', after: 'price int4 NOT NULL' });
  });

  it('varchar(n) may grow or become text; numeric(p,s) may not lose integer digits', () => {
    const before = model([table('t', { columns: [column('a', sqlType('character varying(20)', 'varchar')), column('b', sqlType('numeric(10,2)', 'numeric'))] })]);
    const wider = model([table('t', { columns: [column('a', sqlType('text', 'text')), column('b', sqlType('numeric(12,2)', 'numeric'))] })]);
    const narrower = model([table('t', { columns: [column('a', sqlType('character varying(10)', 'varchar')), column('b', sqlType('numeric(8,2)', 'numeric'))] })]);
    expect(diffApi(before, wider).map((c) => c.severity)).toEqual(['compatible', 'compatible']);
    expect(diffApi(before, narrower).map((c) => c.severity)).toEqual(['breaking', 'breaking']);
  });

  it('a column renamed in place is one breaking rename, not a drop and an add', () => {
    const head = model([table('items', { columns: [column('id', int4), column('price', numeric), column('remark', text, { nullable: true })] })]);
    expect(diffApi(base, head)).toEqual([
      {
        kind: 'column_renamed',
        severity: 'breaking',
        target: 'public.items.note',
        message: 'column renamed: note → remark',
        reason: 'a request that names note (select, filter, order, write) now fails (42703)',
        before: 'note text',
        after: 'remark text',
      },
    ]);
  });

  it('a dropped column and a new one at the end are a drop and an add', () => {
    const head = model([table('items', { columns: [column('id', int4), column('note', text, { nullable: true }), column('cost', numeric)] })]);
    expect(summary(diffApi(base, head))).toEqual(['breaking column_removed public.items.price', 'breaking column_added public.items.cost']);
  });

  it('nullability and defaults', () => {
    const head = model([table('items', { columns: [column('id', int4, { identity: 'by default' }), column('price', numeric, { nullable: true, default: '0' }), column('note', text)] })]);
    expect(diffApi(base, head).map((c) => `${c.severity} ${c.target}: ${c.message}`)).toEqual([
      'compatible public.items.id: default added: GENERATED BY DEFAULT AS IDENTITY',
      'breaking public.items.price: now nullable (NOT NULL dropped)',
      'compatible public.items.price: default added: DEFAULT 0',
      'breaking public.items.note: now NOT NULL',
    ]);
    expect(summary(diffApi(head, base))).toEqual([
      'breaking column_default_changed public.items.id',
      'breaking column_nullability_changed public.items.price',
      'breaking column_default_changed public.items.price',
      'breaking column_nullability_changed public.items.note',
    ]);
  });
});

describe('diffApi: endpoints, keys, RLS and grants', () => {
  const owner: PolicyModel = { name: 'own rows', command: 'SELECT', permissive: true, roles: ['authenticated'], using: '(owner = auth.uid())', withCheck: null };
  const base = model([table('notes', { rls: { enabled: true, forced: false }, policies: [owner] }), table('tags')]);

  it('a removed endpoint is breaking; a new one is compatible and shows its policies in full', () => {
    const head = model([table('notes', { rls: { enabled: true, forced: false }, policies: [owner] }), table('labels', { rls: { enabled: true, forced: false }, policies: [owner] })]);
    const changes = diffApi(base, head);
    expect(summary(changes)).toEqual(['compatible endpoint_added public.labels', 'compatible policy_added public.labels policy own rows', 'breaking endpoint_removed public.tags']);
    expect(changes[0]!.message).toBe('table added (RLS enabled, 1 policy)');
    expect(changes[1]!.after).toBe('CREATE POLICY "own rows" ON public.labels\n  AS PERMISSIVE FOR SELECT\n  TO authenticated\n  USING ((owner = auth.uid()))');
  });

  it('a changed policy is breaking and shown in full before and after', () => {
    const head = model([table('notes', { rls: { enabled: true, forced: false }, policies: [{ ...owner, roles: ['anon', 'authenticated'], using: 'true' }] }), table('tags')]);
    expect(diffApi(base, head)).toEqual([
      {
        kind: 'policy_changed',
        severity: 'breaking',
        target: 'public.notes policy own rows',
        message: 'SELECT policy changed',
        reason: 'which rows a request sees or may write changes',
        before: 'CREATE POLICY "own rows" ON public.notes\n  AS PERMISSIVE FOR SELECT\n  TO authenticated\n  USING ((owner = auth.uid()))',
        after: 'CREATE POLICY "own rows" ON public.notes\n  AS PERMISSIVE FOR SELECT\n  TO anon, authenticated\n  USING (true)',
      },
    ]);
  });

  it('turning RLS off is breaking; policies on a table without RLS on either side change nothing', () => {
    const off = model([table('notes', { policies: [owner] }), table('tags', { policies: [] })]);
    expect(summary(diffApi(base, off))).toEqual(['breaking rls_changed public.notes']);
    const added = model([table('notes', { policies: [owner] }), table('tags', { policies: [owner] })]);
    expect(summary(diffApi(off, added))).toEqual(['compatible policy_added public.tags policy own rows']);
  });

  it('a revoked grant is breaking, a new grant compatible', () => {
    const grants = table('tags').grants;
    const head = model([
      table('notes', { rls: { enabled: true, forced: false }, policies: [owner], grants: { ...grants, anon: { ...grants.anon, delete: false } } }),
      table('tags', { grants: { ...grants, anon: { select: true, insert: false, update: false, delete: false } } }),
    ]);
    const back = diffApi(head, base);
    expect(back.map((c) => `${c.severity} ${c.message}`)).toEqual([
      'compatible GRANT DELETE ON public.notes TO anon',
      'compatible GRANT INSERT ON public.tags TO anon',
      'compatible GRANT UPDATE ON public.tags TO anon',
      'compatible GRANT DELETE ON public.tags TO anon',
    ]);
    expect(diffApi(base, head).map((c) => `${c.severity} ${c.message}`)).toEqual([
      'breaking REVOKE DELETE ON public.notes FROM anon',
      'breaking REVOKE INSERT ON public.tags FROM anon',
      'breaking REVOKE UPDATE ON public.tags FROM anon',
      'breaking REVOKE DELETE ON public.tags FROM anon',
    ]);
  });

  it('a second foreign key to the same table makes embeds ambiguous: breaking', () => {
    const one = model([table('users'), table('posts', { columns: [column('id', int4), column('author', int4), column('editor', int4)], foreignKeys: [fk('posts_author_fkey', ['author'], 'users')] })]);
    const two = model([table('users'), table('posts', { ...one.relations[1]!, foreignKeys: [fk('posts_author_fkey', ['author'], 'users'), fk('posts_editor_fkey', ['editor'], 'users')] })]);
    expect(diffApi(one, two).map((c) => `${c.severity} ${c.message}`)).toEqual(['breaking second foreign key to public.users added']);
    expect(diffApi(two, one).map((c) => `${c.severity} ${c.message}`)).toEqual(['breaking foreign key to public.users removed']);
  });
});

describe('diffApi: RPC functions', () => {
  const arg = (name: string, argType = int4, hasDefault = false): FunctionArgModel => ({ name, type: argType, mode: 'in', hasDefault });
  const fn = (name: string, args: FunctionArgModel[], extra: Partial<FunctionModel> = {}): FunctionModel => ({
    schema: 'public',
    name,
    identityArguments: args.map((a) => `${a.name} ${a.type.sql}`).join(', '),
    args,
    returnType: int4,
    returnsSet: false,
    rows: 0,
    volatility: 'stable',
    securityDefiner: false,
    language: 'sql',
    comment: null,
    execute: { anon: true, authenticated: true, service_role: true },
    ...extra,
  });
  const base = model([], { functions: [fn('add', [arg('a'), arg('b', int4, true)]), fn('gone', [])] });

  it('a required parameter added is breaking, an optional one compatible; a removed function breaking', () => {
    const required = model([], { functions: [fn('add', [arg('a'), arg('b', int4, true), arg('c')])] });
    expect(diffApi(base, required).map((c) => `${c.severity} ${c.target}: ${c.message}`)).toEqual([
      'breaking public.add(a int4, b int4): required parameter added: c int4',
      'breaking public.gone(): RPC function removed',
    ]);
    const optional = model([], { functions: [fn('add', [arg('a'), arg('b', int4, true), arg('c', text, true)]), fn('gone', [])] });
    expect(diffApi(base, optional)).toEqual([
      {
        kind: 'function_parameter_added',
        severity: 'compatible',
        target: 'public.add(a int4, b int4)',
        message: 'optional parameter added: c text DEFAULT …',
        reason: 'calls that omit it still work',
        before: 'public.add(a int4, b int4 DEFAULT …) RETURNS int4 STABLE',
        after: 'public.add(a int4, b int4 DEFAULT …, c text DEFAULT …) RETURNS int4 STABLE',
      },
    ]);
  });

  it('renamed and retyped parameters, return type, volatility and EXECUTE', () => {
    const head = model([], {
      functions: [
        fn('add', [arg('x'), arg('b', numeric, true)], { returnType: int8, volatility: 'volatile', execute: { anon: false, authenticated: true, service_role: true } }),
        fn('gone', []),
        fn('fresh', []),
      ],
    });
    expect(diffApi(base, head).map((c) => `${c.severity} ${c.kind}: ${c.message}`)).toEqual([
      'breaking function_parameter_renamed: parameter renamed: a → x',
      'compatible function_parameter_type_changed: parameter b: int4 → numeric (widened)',
      'compatible function_return_changed: returns int4 → int8',
      'breaking function_volatility_changed: volatility stable → volatile',
      'breaking grant_revoked: REVOKE EXECUTE ON FUNCTION public.add(a int4, b int4) FROM anon',
      'compatible function_added: RPC function added',
    ]);
  });
});

describe('diffApi: enums', () => {
  const mood = (values: string[]) => ({ schema: 'public', name: 'mood', values, comment: null });
  it('a value added is compatible, a value removed breaking', () => {
    const changes = diffApi(model([], { enums: [mood(['sad', 'ok'])] }), model([], { enums: [mood(['ok', 'happy'])] }));
    expect(changes.map((c) => `${c.severity} ${c.message}`)).toEqual(["breaking value 'sad' removed", "compatible value 'happy' added"]);
    expect(changes[0]!.after).toBe("ENUM ('ok', 'happy')");
  });
  it('from nothing, everything is added', () => {
    expect(summary(diffApi(emptyApiDescription, model([table('t')], { enums: [mood(['a'])] })))).toEqual([
      'compatible endpoint_added public.t',
      'compatible enum_added public.mood',
    ]);
  });
});

describe('parseSquawkReport', () => {
  it('turns 0-based positions 1-based, names files as the caller does, and sorts', () => {
    const json = JSON.stringify([
      { file: '/r/m/2.sql', line: 3, column: 0, level: 'Warning', message: 'Dropping a column may break existing clients.', help: null, rule_name: 'ban-drop-column', column_end: 9, line_end: 3 },
      { file: '/r/m/1.sql', line: 0, column: 18, level: 'Error', message: 'expected from item', help: null, rule_name: 'syntax-error', column_end: 20, line_end: 0 },
    ]);
    expect(parseSquawkReport(json, new Map([['/r/m/1.sql', 'm/1.sql'], ['/r/m/2.sql', 'm/2.sql']]))).toEqual([
      { file: 'm/1.sql', line: 1, column: 19, rule: 'syntax-error', level: 'error', message: 'expected from item', help: null },
      { file: 'm/2.sql', line: 4, column: 1, rule: 'ban-drop-column', level: 'warning', message: 'Dropping a column may break existing clients.', help: null },
    ]);
  });
});

describe('renderers', () => {
  const base = model([table('items', { columns: [column('id', int4), column('price', numeric)] })]);
  const head = model([table('items', { columns: [column('id', int4), column('price', int4), column('note', text, { nullable: true })] })]);
  const report = apiReport('shop', 'HEAD', 'working tree', describeChanges(base, head, []).changes, {
    files: ['migrations/shop/20261126120000_retype.sql'],
    findings: [{ file: 'migrations/shop/20261126120000_retype.sql', line: 1, column: 38, rule: 'changing-column-type', level: 'warning', message: 'Changing a column type requires an `ACCESS EXCLUSIVE` lock.', help: null }],
  });

  it('text', () => {
    expect(renderText(report)).toBe(
      [
        'shop: API changes from HEAD to working tree: 1 breaking, 1 compatible',
        'BREAKING public.items.price: type numeric → int4',
        '  values valid before may now be refused or read back differently, whatever the TypeScript type says',
        '  - price numeric NOT NULL',
        '  + price int4 NOT NULL',
        '  endpoints: GET /rest/v1/items, POST /rest/v1/items, PATCH /rest/v1/items, DELETE /rest/v1/items',
        '  types: database.types.ts unchanged',
        '  data: rows with a fractional part in price (the cast to int4 rounds them): not counted: no database (gantry diff --data counts them)',
        '  data: rows with price outside the range of int4 (the migration fails, 22003): not counted: no database (gantry diff --data counts them)',
        '  expand/contract: add a column of type int4 beside price, backfill it (deciding what happens to values that do not fit), write both, switch clients, then drop price',
        'compatible public.items.note: column added',
        '  select=* answers one more field; writes that omit it still work',
        '  + note text',
        '  endpoints: GET /rest/v1/items, POST /rest/v1/items, PATCH /rest/v1/items, DELETE /rest/v1/items',
        '  types:',
        "    Database['public']['Tables']['items']['Row'].note: string | null added",
        "    Database['public']['Tables']['items']['Insert'].note?: string | null added",
        "    Database['public']['Tables']['items']['Update'].note?: string | null added",
        '',
        'migration lint (squawk): 1 finding in 1 new file',
        'migrations/shop/20261126120000_retype.sql:1:38 changing-column-type (warning): Changing a column type requires an `ACCESS EXCLUSIVE` lock.',
        '  accept it: -- squawk-ignore changing-column-type',
      ].join('\n'),
    );
  });

  it('markdown', () => {
    expect(renderMarkdown(report)).toBe(
      [
        '### API changes: `shop` (HEAD → working tree)',
        '',
        '**1 breaking**, 1 compatible',
        '',
        '#### Breaking',
        '',
        '- `public.items.price`: type numeric → int4. values valid before may now be refused or read back differently, whatever the TypeScript type says.',
        '  ```diff',
        '  - price numeric NOT NULL',
        '  + price int4 NOT NULL',
        '  ```',
        '  - **Endpoints**: `GET /rest/v1/items`, `POST /rest/v1/items`, `PATCH /rest/v1/items`, `DELETE /rest/v1/items`',
        '  - **Types**: `database.types.ts` unchanged',
        '  - **Data**: rows with a fractional part in price (the cast to int4 rounds them): not counted: no database (gantry diff --data counts them)',
        '  - **Data**: rows with price outside the range of int4 (the migration fails, 22003): not counted: no database (gantry diff --data counts them)',
        '  - **Expand/contract**: add a column of type int4 beside price, backfill it (deciding what happens to values that do not fit), write both, switch clients, then drop price',
        '',
        '#### Compatible',
        '',
        '- `public.items.note`: column added. select=* answers one more field; writes that omit it still work.',
        '  ```diff',
        '  + note text',
        '  ```',
        '  - **Endpoints**: `GET /rest/v1/items`, `POST /rest/v1/items`, `PATCH /rest/v1/items`, `DELETE /rest/v1/items`',
        "  - **Types**: `Database['public']['Tables']['items']['Row'].note: string | null added`; `Database['public']['Tables']['items']['Insert'].note?: string | null added`; `Database['public']['Tables']['items']['Update'].note?: string | null added`",
        '',
        '#### Migration lint (squawk)',
        '',
        '| File | Line | Rule | Finding |',
        '|---|---|---|---|',
        '| `migrations/shop/20261126120000_retype.sql` | 1 | `changing-column-type` | Changing a column type requires an `ACCESS EXCLUSIVE` lock. |',
        '',
        'Accept a finding with `-- squawk-ignore <rule>` on the line before the statement.',
        '',
        'Accept a breaking change the pull request means with `-- gantry:breaking <target> <reason>` in its migration.',
      ].join('\n'),
    );
  });
});
