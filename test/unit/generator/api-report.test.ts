import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApiReport } from '../../../generator/api-diff/api-report.js';
import { apiReport, unacceptedBreaking } from '../../../generator/api-diff/api-report.js';
import { readBreakingMarkers } from '../../../generator/api-diff/breaking-marker.js';
import { scanExtensionCode } from '../../../generator/api-diff/code-references.js';
import { describeChanges } from '../../../generator/api-diff/make-report.js';
import { declaredRenames, renameStatement } from '../../../generator/api-diff/renames.js';
import { renderMarkdown } from '../../../generator/api-diff/render-markdown.js';
import { renderText } from '../../../generator/api-diff/render-text.js';
import type { FunctionModel, RelationModel } from '../../../generator/model/types.js';
import { column, int4, model, table, text, type } from './model-fixtures.js';

const int8 = type('int8');
const numeric = type('numeric');
const varchar = (n: number) => ({ ...type('varchar'), sql: `character varying(${n})` });
const code = scanExtensionCode([{ name: 'extensions/helpdesk/index.ts', text: fs.readFileSync(path.join(import.meta.dirname, '../../fixtures/helpdesk/extension.ts.txt'), 'utf8') }]);

/** The helpdesk: tickets of an organisation, a view of open tickets that takes no inserts, a function. */
function tickets(columns = [column('id', int8), column('org_id', int8), column('title', text), column('status', text, { default: "'open'::text" })], extra: Partial<RelationModel> = {}): RelationModel {
  return table('tickets', { columns, ...extra });
}
const openTickets = table('open_tickets', { kind: 'view', columns: [column('id', int8, { nullable: true }), column('title', text, { nullable: true })], updatable: { insert: false, update: true, delete: true } });
const orgTotals: FunctionModel = {
  schema: 'public', name: 'org_totals', identityArguments: 'org bigint', args: [{ name: 'org', type: int8, mode: 'in', hasDefault: false }],
  returnType: int8, returnsSet: false, rows: 0, volatility: 'stable', securityDefiner: false, language: 'sql', comment: null,
  execute: { anon: false, authenticated: true, service_role: true },
};
const base = model([tickets(), openTickets], { functions: [orgTotals] });
const migration = (sql: string) => [{ name: 'migrations/helpdesk/20261128120000_change.sql', sql }];

describe('renames declared by the migration', () => {
  it('reads ALTER … RENAME statements, quoted and qualified names, and ignores others', () => {
    expect(renameStatement('ALTER TABLE public.tickets RENAME COLUMN title TO subject')).toEqual({ what: 'column', schema: 'public', name: 'tickets', column: 'title', to: 'subject' });
    expect(renameStatement('alter table if exists only "Tickets" rename "Title" to subject')).toEqual({ what: 'column', schema: null, name: 'Tickets', column: 'Title', to: 'subject' });
    expect(renameStatement('ALTER VIEW open_tickets RENAME TO unresolved')).toEqual({ what: 'relation', schema: null, name: 'open_tickets', to: 'unresolved' });
    expect(renameStatement('ALTER FUNCTION org_totals(bigint) RENAME TO org_counts')).toEqual({ what: 'function', schema: null, name: 'org_totals', to: 'org_counts' });
    expect(renameStatement('ALTER TABLE tickets RENAME CONSTRAINT a TO b')).toBeNull();
    expect(renameStatement('ALTER TABLE tickets ADD COLUMN to_do text')).toBeNull();
  });

  it('traces chains back to the base: a table renamed, then a column of it under the new name', () => {
    const renames = declaredRenames([
      '-- a comment\nALTER TABLE tickets RENAME TO issues;\nALTER TABLE issues RENAME COLUMN title TO summary;',
      'ALTER TABLE issues RENAME summary TO subject; SELECT \'ALTER TABLE x RENAME TO y\';',
    ]);
    expect([...renames.relations]).toEqual([['public\0tickets', 'public\0issues']]);
    expect([...renames.columns.get('public\0tickets')!]).toEqual([['title', 'subject']]);
  });
});

describe('the report of a change: endpoints, types, references (helpdesk)', () => {
  it('a rename mixed with an added and a retyped column: one rename, one type change, one addition', () => {
    const head = model([tickets([column('id', int8), column('org_id', int8), column('subject', varchar(200)), column('status', text, { default: "'open'::text" }), column('priority', int4, { nullable: true })]), openTickets], { functions: [orgTotals] });
    const sql = 'ALTER TABLE tickets RENAME COLUMN title TO subject;\nALTER TABLE tickets ALTER COLUMN subject TYPE varchar(200);\nALTER TABLE tickets ADD COLUMN priority int;';
    const { changes } = describeChanges(base, head, migration(sql), code);
    expect(changes.map((c) => `${c.severity} ${c.kind} ${c.target}: ${c.message}`)).toEqual([
      'breaking column_renamed public.tickets.title: column renamed: title → subject',
      'breaking column_type_changed public.tickets.subject: type text → character varying(200) (renamed from title)',
      'compatible column_added public.tickets.priority: column added',
    ]);
    const [renamed] = changes;
    expect(renamed!.endpoints).toEqual(['GET /rest/v1/tickets', 'POST /rest/v1/tickets', 'PATCH /rest/v1/tickets', 'DELETE /rest/v1/tickets', 'POST /functions/v1/close-ticket']);
    expect(renamed!.types).toEqual([
      "Database['public']['Tables']['tickets']['Row'].title: string → subject: string",
      "Database['public']['Tables']['tickets']['Insert'].title: string → subject: string",
      "Database['public']['Tables']['tickets']['Update'].title?: string → subject?: string",
    ]);
    expect(renamed!.references.map((r) => `${r.file}:${r.line}:${r.column} ${r.kind} ${r.in ?? '-'} ${r.endpoint ?? '-'} ${r.text}`)).toEqual([
      'extensions/helpdesk/index.ts:4:22 string - - tickets',
      'extensions/helpdesk/index.ts:9:7 hook - - tickets.beforeInsert',
      'extensions/helpdesk/index.ts:10:45 property hook tickets.beforeInsert - title',
      'extensions/helpdesk/index.ts:10:56 property hook tickets.beforeInsert - title',
      "extensions/helpdesk/index.ts:19:32 sql route close-ticket POST /functions/v1/close-ticket UPDATE tickets SET status = 'closed' WHERE id = $1 RETURNING id, title, status",
    ]);
    expect(renamed!.expandContract).toBe('add column subject, backfill it from title, write both (a trigger or the writers), switch clients to subject, then drop title');
    expect(changes[1]!.data.map((d) => d.description)).toEqual(['rows with title longer than 200 characters (the migration fails, 22001)']);
    expect(changes[2]!.types).toEqual([
      "Database['public']['Tables']['tickets']['Row'].priority: number | null added",
      "Database['public']['Tables']['tickets']['Insert'].priority?: number | null added",
      "Database['public']['Tables']['tickets']['Update'].priority?: number | null added",
    ]);
    expect(changes[2]!.expandContract).toBeNull();
  });

  it('without the migration the same models read as a drop and an add (what the report said before)', () => {
    const head = model([tickets([column('id', int8), column('org_id', int8), column('subject', varchar(200)), column('status', text, { default: "'open'::text" })]), openTickets], { functions: [orgTotals] });
    expect(describeChanges(base, head, []).changes.map((c) => c.kind)).toEqual(['column_removed', 'column_added']);
  });

  it('a table renamed: its old endpoints fail, its other changes follow under the new name', () => {
    const issues = { ...tickets(), name: 'issues', columns: [...tickets().columns, column('closed_at', text, { nullable: true })] };
    const head = model([issues, openTickets], { functions: [orgTotals] });
    const { changes } = describeChanges(base, head, migration('ALTER TABLE tickets RENAME TO issues; ALTER TABLE issues ADD COLUMN closed_at text;'), code);
    expect(changes.map((c) => `${c.severity} ${c.kind} ${c.target}`)).toEqual(['breaking endpoint_renamed public.tickets', 'compatible column_added public.issues.closed_at']);
    expect(changes[0]!.endpoints).toEqual([
      'GET /rest/v1/tickets', 'POST /rest/v1/tickets', 'PATCH /rest/v1/tickets', 'DELETE /rest/v1/tickets',
      'GET /rest/v1/issues', 'POST /rest/v1/issues', 'PATCH /rest/v1/issues', 'DELETE /rest/v1/issues',
      'POST /functions/v1/close-ticket',
    ]);
    expect(changes[0]!.types).toEqual(["Database['public']['Tables']['tickets'] → Database['public']['Tables']['issues']"]);
    expect(changes[0]!.references.map((r) => `${r.line} ${r.kind}`)).toEqual(['4 string', '9 hook', '19 sql']);
  });

  it('a view without insert has no POST; a stable function is GET and POST; a function renamed is found in the SQL that calls it', () => {
    const head = model([tickets()], { functions: [{ ...orgTotals, name: 'org_counts' }] });
    const { changes } = describeChanges(base, head, migration('ALTER FUNCTION org_totals(bigint) RENAME TO org_counts;'), code);
    expect(changes.map((c) => `${c.kind} ${c.target}`)).toEqual(['endpoint_removed public.open_tickets', 'function_renamed public.org_totals(org bigint)']);
    expect(changes[0]!.endpoints).toEqual(['GET /rest/v1/open_tickets', 'PATCH /rest/v1/open_tickets', 'DELETE /rest/v1/open_tickets']);
    expect(changes[0]!.types).toEqual(["Database['public']['Views']['open_tickets'] removed"]);
    expect(changes[1]!.endpoints).toEqual(['GET /rest/v1/rpc/org_totals', 'POST /rest/v1/rpc/org_totals', 'GET /rest/v1/rpc/org_counts', 'POST /rest/v1/rpc/org_counts', 'GET /functions/v1/org-stats']);
    expect(changes[1]!.types).toEqual(["Database['public']['Functions']['org_totals'] → Database['public']['Functions']['org_counts']"]);
  });

  it('SQL the type checker found (a query function held in a variable) is matched as SQL; without it, only `….sql` tags are', () => {
    const aliased = "export async function count(ctx: ExtensionContext) {\n  const run = ctx.sql;\n  return run`select title from tickets`;\n}\n";
    const head = model([tickets([column('id', int8), column('org_id', int8), column('status', text, { default: "'open'::text" })]), openTickets], { functions: [orgTotals] });
    const sites = (sqlSites?: { line: number; column: number }[]) =>
      describeChanges(base, head, [], scanExtensionCode([{ name: 'extensions/helpdesk/count.ts', text: aliased, sqlSites }])).changes[0]!.references.map((r) => `${r.line}:${r.column} ${r.kind} ${r.text}`);
    expect(sites([{ line: 3, column: 10 }])).toEqual(['3:10 sql select title from tickets']);
    expect(sites()).toEqual([]);
  });

  it('numeric → integer: the types do not change, the rows are asked about', () => {
    const priced = model([table('orders', { columns: [column('id', int8), column('total', numeric)] })]);
    const integer = model([table('orders', { columns: [column('id', int8), column('total', int4)] })]);
    const [change] = describeChanges(priced, integer, []).changes;
    expect(change!.types).toEqual([]);
    expect(change!.data).toEqual([
      { description: 'rows with a fractional part in total (the cast to int4 rounds them)', rows: null, note: 'not counted: no database (gantry diff --data counts them)' },
      { description: 'rows with total outside the range of int4 (the migration fails, 22003)', rows: null, note: 'not counted: no database (gantry diff --data counts them)' },
    ]);
  });
});

describe('-- gantry:breaking', () => {
  const head = model([tickets([column('id', int8), column('org_id', int8), column('subject', text), column('status', text)]), openTickets], { functions: [orgTotals] });
  const rename = 'ALTER TABLE tickets RENAME COLUMN title TO subject;\nALTER TABLE tickets ALTER COLUMN status DROP DEFAULT;\n';

  it('reads the marker per line; one without a reason is a warning', () => {
    expect(readBreakingMarkers('m.sql', '-- gantry:breaking tickets.title clients moved to subject in app 2.4\n  -- gantry:breaking tickets\n-- gantry:breakingly not\n')).toEqual({
      markers: [{ file: 'm.sql', line: 1, target: 'tickets.title', reason: 'clients moved to subject in app 2.4' }],
      warnings: [{ file: 'm.sql', line: 2, message: '-- gantry:breaking needs a target and a reason: -- gantry:breaking <target> <reason>' }],
    });
  });

  it('accepts the changes it names, with the reason; an unnamed breaking change still fails; a marker naming nothing is a warning', () => {
    const sql = `-- gantry:breaking tickets.title the app reads subject since 2.4\n-- gantry:breaking public.tickets.titel typo\n${rename}`;
    const described = describeChanges(base, head, migration(sql));
    const report = apiReport('helpdesk', 'main', 'working tree', described.changes, { files: [], findings: [] }, { warnings: described.warnings });
    expect(report.changes.map((c) => `${c.target} ${c.accepted?.reason ?? 'not accepted'}`)).toEqual([
      'public.tickets.title the app reads subject since 2.4',
      'public.tickets.status not accepted',
    ]);
    expect(report.summary).toEqual({ breaking: 2, accepted: 1, compatible: 0, lint: 0 });
    expect(unacceptedBreaking(report)).toBe(1);
    expect(report.warnings).toEqual([{ file: 'migrations/helpdesk/20261128120000_change.sql', line: 2, message: '-- gantry:breaking public.tickets.titel names no breaking change of this report' }]);
    const both = describeChanges(base, head, migration(`-- gantry:breaking tickets.title renamed\n-- gantry:breaking tickets.status inserts send a status\n${rename}`));
    expect(unacceptedBreaking(apiReport('helpdesk', 'main', 'working tree', both.changes, { files: [], findings: [] }))).toBe(0);
  });
});

/** Every fact of the JSON report, as the text a reader would search for. */
function facts(report: ApiReport): string[] {
  return report.changes.flatMap((c) => [
    c.target,
    c.message,
    c.reason,
    ...c.endpoints,
    ...c.types,
    ...c.references.flatMap((r) => [`${r.file}:${r.line}:${r.column}`, r.kind, r.text, ...(r.in === null ? [] : [r.in]), ...(r.endpoint === null ? [] : [r.endpoint])]),
    ...c.data.flatMap((d) => [d.description, ...(d.rows === null ? [] : [`${d.rows} `]), ...(d.note === null ? [] : [d.note])]),
    ...(c.expandContract === null ? [] : [c.expandContract]),
    ...(c.accepted === null ? [] : [c.accepted.reason, `${c.accepted.file}:${c.accepted.line}`]),
    ...(c.before ?? '').split('\n'),
    ...(c.after ?? '').split('\n'),
  ]).concat(report.warnings.flatMap((w) => [`${w.file}:${w.line}`, w.message]));
}

describe('text, markdown and JSON carry the same facts', () => {
  it('every fact of the JSON appears in the text and in the markdown', () => {
    const head = model([tickets([column('id', int8), column('org_id', int8), column('subject', varchar(80)), column('status', text)])], { functions: [] });
    const sql = '-- gantry:breaking tickets.title the app reads subject\n-- gantry:breaking nothing.here at all\nALTER TABLE tickets RENAME COLUMN title TO subject;';
    const described = describeChanges(base, head, migration(sql), code);
    const counted = described.changes.map((c) => ({ ...c, data: c.data.map((d, i) => (i === 0 ? { ...d, rows: 3, note: null } : d)) }));
    const report = apiReport('helpdesk', 'main', 'working tree', counted, { files: [], findings: [] }, { database: '127.0.0.1:5432/helpdesk', warnings: described.warnings });
    const all = facts(report);
    expect(all.length).toBeGreaterThan(40);
    const [plain, markdown] = [renderText(report), renderMarkdown(report)];
    expect(all.filter((fact) => !plain.includes(fact))).toEqual([]);
    expect(all.filter((fact) => !markdown.includes(fact))).toEqual([]);
    expect(plain).toContain('rows counted in 127.0.0.1:5432/helpdesk');
    expect(markdown).toContain('Rows counted in `127.0.0.1:5432/helpdesk`.');
  });
});
