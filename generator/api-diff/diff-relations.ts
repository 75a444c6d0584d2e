import type { ColumnModel, ComputedModel, ForeignKeyModel, KeyModel, RelationModel } from '../model/types.js';
import { apiRoles } from '../introspect/catalog-queries.js';
import { apiChange as change, apiChange as makeChange, type ApiChange, type ApiChangeKind, type Severity, type SubjectChange } from './api-change.js';
import {
  columnDefault,
  columnDefinition,
  columnRefusesWrites,
  displayName,
  grantsDefinition,
  policyDefinition,
  privileges,
} from './definitions.js';
import { isWidening } from './type-widening.js';

/** The changes to one relation (an endpoint) present on both sides; `renamed`: its columns' declared renames, base name → head name. */
export function diffRelation(base: RelationModel, head: RelationModel, renamed: ReadonlyMap<string, string> = new Map()): SubjectChange[] {
  const target = displayName(head.schema, head.name);
  const whole = (changes: ApiChange[]): SubjectChange[] => changes.map((c) => ({ change: c, subject: { kind: 'relation', base, head, column: null } }));
  return [
    ...whole(diffCapabilities(target, base, head)),
    ...diffColumns(target, base, head, renamed),
    ...whole([
      ...diffKeys(target, base, head),
      ...diffForeignKeys(target, base, head),
      ...diffRls(target, base, head),
      ...diffPolicies(target, base, head),
      ...diffGrants(target, base, head),
    ]),
  ];
}

/** A relation renamed (declared by the migration): its old endpoint is gone, its other changes follow under the new name. */
export function relationRenamed(base: RelationModel, head: RelationModel, renamed: ReadonlyMap<string, string>): SubjectChange[] {
  const kind = base.kind.replace('_', ' ');
  const renaming = change('endpoint_renamed', 'breaking', displayName(base.schema, base.name), `${kind} renamed: ${base.name} → ${head.name}`, `every request to ${base.name} now fails (404)`, `${kind} ${displayName(base.schema, base.name)}`, `${head.kind.replace('_', ' ')} ${displayName(head.schema, head.name)}`);
  return [{ change: renaming, subject: { kind: 'relation', base, head, column: null } }, ...diffRelation(base, head, renamed)];
}

/** A new endpoint, with its policies in full: they decide who sees its rows from the first request on. */
export function relationAdded(head: RelationModel): SubjectChange[] {
  const target = displayName(head.schema, head.name);
  const rls = head.rls.enabled ? `RLS enabled, ${head.policies.length} polic${head.policies.length === 1 ? 'y' : 'ies'}` : 'RLS disabled';
  const after = [...head.columns.map(columnDefinition), '', 'grants:', grantsDefinition(head.grants)].join('\n');
  const subject = { kind: 'relation', base: null, head, column: null } as const;
  return [
    change('endpoint_added', 'compatible', target, `${head.kind.replace('_', ' ')} added (${rls})`, 'a new endpoint: no existing request uses it', null, after),
    ...head.policies.map((policy) =>
      change('policy_added', 'compatible', `${target} policy ${policy.name}`, 'policy added with the new endpoint', 'a new endpoint: no existing request uses it', null, policyDefinition(head.schema, head.name, policy)),
    ),
  ].map((c) => ({ change: c, subject }));
}

export function relationRemoved(base: RelationModel): SubjectChange {
  const target = displayName(base.schema, base.name);
  return {
    change: change('endpoint_removed', 'breaking', target, `${base.kind.replace('_', ' ')} removed`, 'every request to it now fails (404)', base.columns.map(columnDefinition).join('\n'), null),
    subject: { kind: 'relation', base, head: null, column: null },
  };
}

export function computedAdded(head: ComputedModel): ApiChange {
  return change('computed_field_added', 'compatible', computedTarget(head), `computed field added: returns ${head.returnsSet ? 'SETOF ' : ''}${head.returnType.sql}`, 'selected only by name: no existing request sees it', null, null);
}

export function computedRemoved(base: ComputedModel): ApiChange {
  return change('computed_field_removed', 'breaking', computedTarget(base), 'computed field removed', 'a request that selects it now fails (42703)', null, null);
}

function computedTarget(fn: ComputedModel): string {
  return `${displayName(fn.sourceSchema, fn.sourceName)}.${fn.name}`;
}

function diffCapabilities(target: string, base: RelationModel, head: RelationModel): ApiChange[] {
  const ops = ['insert', 'update', 'delete'] as const;
  const lost = ops.filter((op) => base.updatable[op] && !head.updatable[op]);
  const gained = ops.filter((op) => !base.updatable[op] && head.updatable[op]);
  if (base.kind === head.kind && lost.length + gained.length === 0) return [];
  const parts = [
    ...(base.kind === head.kind ? [] : [`${base.kind.replace('_', ' ')} → ${head.kind.replace('_', ' ')}`]),
    ...(lost.length > 0 ? [`no longer accepts ${lost.join(', ')}`] : []),
    ...(gained.length > 0 ? [`now accepts ${gained.join(', ')}`] : []),
  ];
  return [
    lost.length > 0
      ? change('endpoint_capability_changed', 'breaking', target, parts.join('; '), `${lost.join(', ')} requests now fail`, null, null)
      : change('endpoint_capability_changed', 'compatible', target, parts.join('; '), 'every request that worked still works', null, null),
  ];
}

function diffColumns(target: string, base: RelationModel, head: RelationModel, declared: ReadonlyMap<string, string>): SubjectChange[] {
  const on = (c: ApiChange, from: ColumnModel | null, to: ColumnModel | null): SubjectChange => ({ change: c, subject: { kind: 'relation', base, head, column: { base: from, head: to } } });
  const pairs = new Map<ColumnModel, ColumnModel>();
  for (const before of base.columns) {
    const after = head.columns.find((c) => c.name === (declared.get(before.name) ?? before.name));
    if (after) pairs.set(before, after);
  }
  // Renames no migration declared: a removed and an added column at the same position, otherwise identical.
  if (declared.size === 0) {
    const paired = new Set(pairs.values());
    for (const [from, to] of guessRenames(base.columns.filter((c) => !pairs.has(c)), head.columns.filter((c) => !paired.has(c)), base, head)) pairs.set(from, to);
  }
  const headPaired = new Set(pairs.values());
  const changes: SubjectChange[] = [];
  for (const [from, to] of pairs) {
    if (from.name === to.name) continue;
    changes.push(on(change('column_renamed', 'breaking', `${target}.${from.name}`, `column renamed: ${from.name} → ${to.name}`, `a request that names ${from.name} (select, filter, order, write) now fails (42703)`, columnDefinition(from), columnDefinition({ ...from, name: to.name })), from, to));
  }
  for (const column of base.columns) {
    if (pairs.has(column)) continue;
    changes.push(on(change('column_removed', 'breaking', `${target}.${column.name}`, 'column removed', 'a request that names it now fails (42703), and select=* answers without it', columnDefinition(column), null), column, null));
  }
  for (const [before, after] of pairs) {
    const renamedNote = before.name === after.name ? '' : ` (renamed from ${before.name})`;
    changes.push(...diffColumn(`${target}.${after.name}`, before, after, renamedNote).map((c) => on(c, before, after)));
  }
  for (const column of head.columns) {
    if (headPaired.has(column)) continue;
    changes.push(on(columnAdded(`${target}.${column.name}`, column, head.updatable.insert), null, column));
  }
  return changes;
}

/** Removed and added columns at the same position and with the same definition but for the name. */
function guessRenames(removed: readonly ColumnModel[], added: readonly ColumnModel[], base: RelationModel, head: RelationModel): [ColumnModel, ColumnModel][] {
  return removed.flatMap((from): [ColumnModel, ColumnModel][] => {
    const twins = added.filter((to) => base.columns.indexOf(from) === head.columns.indexOf(to) && columnDefinition({ ...from, name: to.name }) === columnDefinition(to));
    return twins.length === 1 ? [[from, twins[0]!]] : [];
  });
}

function columnAdded(target: string, column: ColumnModel, acceptsInserts: boolean): ApiChange {
  const required = acceptsInserts && !column.nullable && columnDefault(column) === null;
  return required
    ? change('column_added', 'breaking', target, 'column added: NOT NULL without a default', 'an insert that omits it now fails (23502)', null, columnDefinition(column))
    : change('column_added', 'compatible', target, 'column added', 'select=* answers one more field; writes that omit it still work', null, columnDefinition(column));
}

function diffColumn(target: string, before: ColumnModel, after: ColumnModel, renamedNote = ''): ApiChange[] {
  const changes: ApiChange[] = [];
  const [from, to] = [columnDefinition(before), columnDefinition(after)];
  const change = (kind: ApiChangeKind, severity: Severity, message: string, reason: string, was: string | null, now: string | null): ApiChange =>
    makeChange(kind, severity, target, `${message}${renamedNote}`, reason, was, now);
  if (before.type.sql !== after.type.sql) {
    changes.push(
      isWidening(before.type, after.type)
        ? change('column_type_changed', 'compatible', `type ${before.type.sql} → ${after.type.sql} (widened)`, 'every value it held is still valid and reads back the same', from, to)
        : change('column_type_changed', 'breaking', `type ${before.type.sql} → ${after.type.sql}`, 'values valid before may now be refused or read back differently, whatever the TypeScript type says', from, to),
    );
  }
  if (before.nullable !== after.nullable) {
    changes.push(
      after.nullable
        ? change('column_nullability_changed', 'breaking', 'now nullable (NOT NULL dropped)', 'reads may now answer null where clients (and api.d.ts) expected a value', from, to)
        : change('column_nullability_changed', 'breaking', 'now NOT NULL', 'a write of null now fails (23502)', from, to),
    );
  }
  const [had, has] = [columnDefault(before), columnDefault(after)];
  if (had !== has) {
    const message = had === null ? `default added: ${has}` : has === null ? `default removed (was ${had})` : `default ${had} → ${has}`;
    changes.push(
      has !== null && had === null && !columnRefusesWrites(after)
        ? change('column_default_changed', 'compatible', message, 'writes that set it are unchanged; an insert that omits it gets the default', from, to)
        : change('column_default_changed', 'breaking', message, defaultReason(before, after), from, to),
    );
  }
  return changes;
}

function defaultReason(before: ColumnModel, after: ColumnModel): string {
  if (columnRefusesWrites(after) && !columnRefusesWrites(before)) return 'a write that sets it now fails (428C9)';
  if (columnDefault(after) === null) return after.nullable ? 'an insert that omits it now stores null' : 'an insert that omits it now fails (23502)';
  return 'an insert that omits it now stores a different value';
}

function keyText(key: KeyModel | null): string | null {
  return key === null ? null : `${key.name} (${key.columns.join(', ')})`;
}

function diffKeys(target: string, base: RelationModel, head: RelationModel): ApiChange[] {
  const changes: ApiChange[] = [];
  const [pkBefore, pkAfter] = [keyText(base.primaryKey), keyText(head.primaryKey)];
  if (pkBefore !== pkAfter) {
    changes.push(change('key_changed', 'breaking', target, 'primary key changed', 'upserts and the rows an update or delete by key addresses change', pkBefore && `PRIMARY KEY ${pkBefore}`, pkAfter && `PRIMARY KEY ${pkAfter}`));
  }
  const uniques = (r: RelationModel): Map<string, string> =>
    new Map([...r.uniqueConstraints, ...r.uniqueIndexes].map((k) => [k.columns.join(', '), `UNIQUE ${keyText(k)}`]));
  const [ub, uh] = [uniques(base), uniques(head)];
  for (const [columns, text] of uh) {
    if (!ub.has(columns)) changes.push(change('key_changed', 'breaking', target, `unique key added on (${columns})`, 'a write that repeats a value now fails (23505)', null, text));
  }
  for (const [columns, text] of ub) {
    if (!uh.has(columns)) changes.push(change('key_changed', 'breaking', target, `unique key removed on (${columns})`, `an upsert with on_conflict=${columns.replace(/ /g, '')} now fails (42P10)`, text, null));
  }
  return changes;
}

function foreignKeyText(schema: string, table: string, fk: ForeignKeyModel): string {
  return `${displayName(schema, table)} (${fk.columns.join(', ')}) REFERENCES ${displayName(fk.targetSchema, fk.targetName)} (${fk.targetColumns.join(', ')}) ON UPDATE ${fk.onUpdate.toUpperCase()} ON DELETE ${fk.onDelete.toUpperCase()}`;
}

function diffForeignKeys(target: string, base: RelationModel, head: RelationModel): ApiChange[] {
  const shape = (fk: ForeignKeyModel): string => `${fk.columns.join(',')}>${fk.targetSchema}.${fk.targetName}(${fk.targetColumns.join(',')})`;
  const baseShapes = new Map(base.foreignKeys.map((fk) => [shape(fk), fk]));
  const headShapes = new Map(head.foreignKeys.map((fk) => [shape(fk), fk]));
  const changes: ApiChange[] = [];
  for (const [key, fk] of baseShapes) {
    const now = headShapes.get(key);
    const text = foreignKeyText(base.schema, base.name, fk);
    if (!now) {
      changes.push(change('foreign_key_removed', 'breaking', target, `foreign key to ${displayName(fk.targetSchema, fk.targetName)} removed`, `an embed of ${fk.targetName} through it now fails (PGRST200)`, text, null));
    } else if (now.onDelete !== fk.onDelete || now.onUpdate !== fk.onUpdate) {
      changes.push(change('key_changed', 'breaking', target, `foreign key to ${displayName(fk.targetSchema, fk.targetName)}: referential actions changed`, `deleting or updating a referenced ${fk.targetName} row now has a different effect`, text, foreignKeyText(head.schema, head.name, now)));
    }
  }
  for (const [key, fk] of headShapes) {
    if (baseShapes.has(key)) continue;
    const toSame = base.foreignKeys.filter((other) => other.targetSchema === fk.targetSchema && other.targetName === fk.targetName);
    const text = foreignKeyText(head.schema, head.name, fk);
    changes.push(
      toSame.length > 0
        ? change('foreign_key_added', 'breaking', target, `second foreign key to ${displayName(fk.targetSchema, fk.targetName)} added`, `an embed of ${fk.targetName} without a !hint is now ambiguous (PGRST201)`, null, text)
        : change('foreign_key_added', 'compatible', target, `foreign key to ${displayName(fk.targetSchema, fk.targetName)} added`, `a new embed: existing requests are unchanged, but writes must now reference an existing ${fk.targetName} row`, null, text),
    );
  }
  return changes;
}

function diffRls(target: string, base: RelationModel, head: RelationModel): ApiChange[] {
  const text = (r: RelationModel): string => `row level security ${r.rls.enabled ? 'enabled' : 'disabled'}${r.rls.forced ? ', forced' : ''}`;
  if (base.rls.enabled === head.rls.enabled && base.rls.forced === head.rls.forced) return [];
  const reason = head.rls.enabled && !base.rls.enabled
    ? 'rows no policy allows disappear from reads, and writes to them fail'
    : !head.rls.enabled && base.rls.enabled
      ? 'every role with a grant now reads and writes every row'
      : 'the table owner is now subject to the policies (or no longer)';
  return [change('rls_changed', 'breaking', target, `${text(base)} → ${text(head)}`, reason, text(base), text(head))];
}

function diffPolicies(target: string, base: RelationModel, head: RelationModel): ApiChange[] {
  const changes: ApiChange[] = [];
  const define = (r: RelationModel, p: RelationModel['policies'][number]): string => policyDefinition(r.schema, r.name, p);
  // Policies only filter while RLS is on: with it off after the change, no request sees a difference from them.
  const inert = !head.rls.enabled && !base.rls.enabled;
  const severity: Severity = inert ? 'compatible' : 'breaking';
  const inertReason = 'row level security is disabled: policies do not apply';
  for (const before of base.policies) {
    const after = head.policies.find((p) => p.name === before.name);
    const policyTarget = `${target} policy ${before.name}`;
    if (!after) {
      changes.push(change('policy_removed', severity, policyTarget, `${before.permissive ? 'permissive' : 'restrictive'} ${before.command} policy removed`, inert ? inertReason : before.permissive ? 'rows it allowed are no longer visible or writable through it' : 'rows it held back are now visible or writable', define(base, before), null));
    } else if (define(base, before) !== define(head, after)) {
      changes.push(change('policy_changed', severity, policyTarget, `${after.command} policy changed`, inert ? inertReason : 'which rows a request sees or may write changes', define(base, before), define(head, after)));
    }
  }
  for (const after of head.policies) {
    if (base.policies.some((p) => p.name === after.name)) continue;
    changes.push(change('policy_added', severity, `${target} policy ${after.name}`, `${after.permissive ? 'permissive' : 'restrictive'} ${after.command} policy added`, inert ? inertReason : after.permissive ? 'requests may now see or write rows they could not' : 'rows now held back from reads, or writes refused', null, define(head, after)));
  }
  return changes;
}

function diffGrants(target: string, base: RelationModel, head: RelationModel): ApiChange[] {
  const changes: ApiChange[] = [];
  for (const role of apiRoles) {
    for (const privilege of privileges) {
      const [had, has] = [base.grants[role][privilege], head.grants[role][privilege]];
      if (had === has) continue;
      const statement = `${privilege.toUpperCase()} ON ${target} ${has ? 'TO' : 'FROM'} ${role}`;
      changes.push(
        has
          ? change('grant_added', 'compatible', target, `GRANT ${statement}`, `${role} may now ${privilege}; requests that worked still work`, null, `GRANT ${statement}`)
          : change('grant_revoked', 'breaking', target, `REVOKE ${statement}`, `${privilege} requests as ${role} now fail (42501)`, `GRANT ${privilege.toUpperCase()} ON ${target} TO ${role}`, null),
      );
    }
  }
  return changes;
}
