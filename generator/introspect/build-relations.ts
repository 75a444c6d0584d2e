import type { Introspection, PgAttribute, PgClass } from 'pg-introspection';
import { compareCodePoints, sortByKey } from '../model/sort.js';
import type {
  ApiRoleGrants,
  ColumnModel,
  ColumnSource,
  ForeignKeyModel,
  InternalTableModel,
  KeyModel,
  PolicyModel,
  ReferentialAction,
  RelationKind,
  RelationModel,
  RoleGrants,
} from '../model/types.js';
import type { ColumnTextRow, PolicyRow, TableGrantRow } from './catalog-queries.js';
import type { RawCatalog } from './raw-catalog.js';
import type { TypeRefs } from './type-refs.js';
import { viewColumnOrigins, type TargetOrigin } from './view-lineage.js';

const relationKinds: Readonly<Record<string, RelationKind>> = {
  r: 'table',
  p: 'table',
  f: 'table',
  v: 'view',
  m: 'materialized_view',
};

const actions: Readonly<Record<string, ReferentialAction>> = {
  a: 'no action',
  r: 'restrict',
  c: 'cascade',
  n: 'set null',
  d: 'set default',
};

const noGrants: RoleGrants = { select: false, insert: false, update: false, delete: false };

export function liveAttributes(cls: PgClass): PgAttribute[] {
  return cls
    .getAttributes()
    .filter((attribute) => attribute.attnum > 0 && !attribute.attisdropped)
    .sort((a, b) => a.attnum - b.attnum);
}

function columnNames(cls: PgClass, attnums: readonly number[] | null): string[] {
  return (attnums ?? []).map((attnum) => cls.getAttribute({ number: attnum })?.attname ?? '');
}

/** Column texts keyed by `relid:attnum`. */
export function indexColumnTexts(rows: readonly ColumnTextRow[]): Map<string, ColumnTextRow> {
  return new Map(rows.map((row) => [`${row.relid}:${row.attnum}`, row]));
}

/** The exposed relations PostgREST serves: tables, partitioned tables, views; partitions left out, as its schema cache does. */
export function buildRelations(raw: RawCatalog, types: TypeRefs): RelationModel[] {
  return buildRelationModels(raw, types, false);
}

/** Partitions of the exposed schemas: not resources, but `supabase gen types` lists them as tables. */
export function buildPartitions(raw: RawCatalog, types: TypeRefs): RelationModel[] {
  return buildRelationModels(raw, types, true);
}

function buildRelationModels(raw: RawCatalog, types: TypeRefs, partitions: boolean): RelationModel[] {
  const { introspection } = raw;
  const exposed = new Set(raw.schemas);
  const texts = indexColumnTexts(raw.columnTexts);
  const lineage = new Map(raw.viewRules.map((rule) => [rule.relid, viewColumnOrigins(rule.action)]));
  const policies = groupBy(raw.policies, (row) => `${row.schemaname}.${row.tablename}`);
  const grants = groupBy(raw.tableGrants, (row) => row.relid);

  const relations = introspection.classes
    .filter((cls) => relationKinds[cls.relkind] !== undefined && (cls.relispartition === true) === partitions)
    .filter((cls) => exposed.has(cls.getNamespace()?.nspname ?? ''))
    .map((cls): RelationModel => {
      const schema = cls.getNamespace()?.nspname ?? '';
      const kind = relationKinds[cls.relkind] as RelationKind;
      const keys = tableKeys(cls);
      const constraintNames = new Set([keys.primaryKey?.name ?? '', ...keys.uniqueConstraints.map((key) => key.name)]);
      const mask = cls.updatable_mask ?? 0;
      return {
        schema,
        name: cls.relname,
        kind,
        comment: cls.getDescription() ?? null,
        columns: liveAttributes(cls).map((attribute) => buildColumn(cls, attribute, texts, types)),
        ...keys,
        uniqueIndexes: sortByKey(
          cls
            .getIndexes()
            .filter((index) => index.indisunique && !index.indisprimary && index.indpred === null && index.indexprs === null)
            .map((index): KeyModel => {
              const keys = index.indkey.slice(0, index.indnkeyatts ?? index.indkey.length);
              return { name: index.getIndexClass()?.relname ?? '', columns: columnNames(cls, keys) };
            })
            .filter((key) => !constraintNames.has(key.name)),
          (key) => [key.name],
        ),
        columnSources: kind === 'table' ? [] : resolveColumnSources(introspection, cls, lineage),
        updatable: {
          insert: (mask & 8) !== 0,
          update: (mask & 4) !== 0,
          delete: (mask & 16) !== 0,
        },
        rls: { enabled: cls.relrowsecurity === true, forced: cls.relforcerowsecurity === true },
        policies: sortByKey((policies.get(`${schema}.${cls.relname}`) ?? []).map(buildPolicy), (p) => [p.name]),
        grants: buildGrants(grants.get(cls._id) ?? []),
      };
    });
  return sortByKey(relations, (relation) => [relation.schema, relation.name]);
}

type TableKeys = Pick<InternalTableModel, 'primaryKey' | 'uniqueConstraints' | 'foreignKeys'>;

/** Primary key, unique constraints and foreign keys of a table, sorted. */
function tableKeys(cls: PgClass): TableKeys {
  // Foreign keys cloned onto partitions (of the referencing or the referenced table) repeat
  // their parent; a partition's own keys stay (postgres-meta reads them for isOneToOne).
  const constraints = cls.getConstraints().filter((c) => c.contype !== 'f' || !c.conparentid || c.conparentid === '0');
  const pk = constraints.find((constraint) => constraint.contype === 'p');
  return {
    primaryKey: pk ? { name: pk.conname, columns: columnNames(cls, pk.conkey) } : null,
    uniqueConstraints: sortByKey(
      constraints
        .filter((constraint) => constraint.contype === 'u')
        .map((constraint): KeyModel => ({ name: constraint.conname, columns: columnNames(cls, constraint.conkey) })),
      (key) => [key.name],
    ),
    foreignKeys: sortByKey(
      constraints
        .filter((constraint) => constraint.contype === 'f')
        .map((constraint): ForeignKeyModel => {
          const target = constraint.getForeignClass();
          return {
            name: constraint.conname,
            columns: columnNames(cls, constraint.conkey),
            targetSchema: target?.getNamespace()?.nspname ?? '',
            targetName: target?.relname ?? '',
            targetColumns: target ? columnNames(target, constraint.confkey) : [],
            onUpdate: actions[constraint.confupdtype ?? 'a'] ?? 'no action',
            onDelete: actions[constraint.confdeltype ?? 'a'] ?? 'no action',
          };
        }),
      (fk) => [fk.name, ...fk.columns],
    ),
  };
}

/**
 * The tables outside the exposed schemas that exposed views read key columns from: their
 * foreign keys reach the views, and through them the API (PostgREST's view key dependencies).
 */
export function buildInternalTables(raw: RawCatalog, relations: readonly RelationModel[]): InternalTableModel[] {
  const exposed = new Set(raw.schemas);
  const wanted = new Set(
    relations.flatMap((relation) => relation.columnSources.filter((s) => !exposed.has(s.schema)).map((s) => `${s.schema}.${s.table}`)),
  );
  const tables = raw.introspection.classes
    .filter((cls) => wanted.has(`${cls.getNamespace()?.nspname ?? ''}.${cls.relname}`))
    .map((cls): InternalTableModel => ({ schema: cls.getNamespace()?.nspname ?? '', name: cls.relname, ...tableKeys(cls) }));
  return sortByKey(tables, (table) => [table.schema, table.name]);
}

function buildColumn(
  cls: PgClass,
  attribute: PgAttribute,
  texts: Map<string, ColumnTextRow>,
  types: TypeRefs,
): ColumnModel {
  const text = texts.get(`${cls._id}:${attribute.attnum}`);
  const generated = attribute.attgenerated === 's';
  const expression = attribute.atthasdef ? (text?.default_expr ?? null) : null;
  return {
    name: attribute.attname,
    type: types.ref(attribute.atttypid, text?.sql),
    nullable: attribute.attnotnull !== true,
    default: generated ? null : expression,
    identity: attribute.attidentity === 'a' ? 'always' : attribute.attidentity === 'd' ? 'by default' : null,
    generated: generated ? expression : null,
    comment: attribute.getDescription() ?? null,
    ...(!generated && text?.domain_default ? { domainDefault: text.domain_default } : {}),
  };
}

function buildPolicy(row: PolicyRow): PolicyModel {
  const command = (['ALL', 'SELECT', 'INSERT', 'UPDATE', 'DELETE'] as const).find((cmd) => cmd === row.cmd) ?? 'ALL';
  return {
    name: row.policyname,
    command,
    permissive: row.permissive === 'PERMISSIVE',
    roles: [...row.roles].sort(compareCodePoints),
    using: row.qual,
    withCheck: row.with_check,
  };
}

function buildGrants(rows: readonly TableGrantRow[]): ApiRoleGrants {
  const of = (role: string): RoleGrants => {
    const row = rows.find((candidate) => candidate.role === role);
    return row
      ? { select: row.can_select, insert: row.can_insert, update: row.can_update, delete: row.can_delete }
      : noGrants;
  };
  return { anon: of('anon'), authenticated: of('authenticated'), service_role: of('service_role') };
}

/** Follows view columns through chains of views down to a base table column. */
function resolveColumnSources(
  introspection: Introspection,
  view: PgClass,
  lineage: Map<string, TargetOrigin[]>,
): ColumnSource[] {
  const sources: ColumnSource[] = [];
  for (const attribute of liveAttributes(view)) {
    let relid = view._id;
    let attnum = attribute.attnum;
    const seen = new Set<string>();
    let resolved: ColumnSource | null = null;
    while (!seen.has(`${relid}:${attnum}`)) {
      seen.add(`${relid}:${attnum}`);
      const origin = lineage.get(relid)?.find((entry) => entry.resno === attnum);
      if (!origin) break;
      const cls = introspection.getClass({ id: origin.table });
      if (!cls) break;
      if (cls.relkind === 'r' || cls.relkind === 'p' || cls.relkind === 'f') {
        resolved = {
          column: attribute.attname,
          schema: cls.getNamespace()?.nspname ?? '',
          table: cls.relname,
          sourceColumn: cls.getAttribute({ number: origin.column })?.attname ?? '',
        };
        break;
      }
      relid = origin.table;
      attnum = origin.column;
    }
    if (resolved) sources.push(resolved);
  }
  return sources;
}

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}
