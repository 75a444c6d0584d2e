import type pg from 'pg';
import type { Introspection, PgType } from 'pg-introspection';
import type { DomainRepresentation, TypeKind, TypeRef } from '../model/types.js';
import type { DomainCastRow, TypeTextRow } from './catalog-queries.js';

/** Builds TypeRefs from catalog type OIDs; OIDs stay inside introspection and never reach the model. */
export class TypeRefs {
  private readonly texts: Map<string, string>;
  private readonly cache = new Map<string, TypeRef>();
  private readonly representations = new Map<string, DomainRepresentation>();

  constructor(
    private readonly introspection: Introspection,
    typeTexts: readonly TypeTextRow[],
    domainCasts: readonly DomainCastRow[],
  ) {
    this.texts = new Map(typeTexts.map((row) => [row.id, row.sql]));
    for (const cast of domainCasts) {
      const key = cast.direction === 'to_json' ? 'toJson' : cast.direction === 'from_json' ? 'fromJson' : 'fromText';
      const current = this.representations.get(cast.domain_id) ?? {};
      this.representations.set(cast.domain_id, { ...current, [key]: { schema: cast.fn_schema, name: cast.fn_name } });
    }
  }

  /** The type with this OID; `sql` overrides the text (a column's typmod-qualified `format_type`). */
  ref(typeId: string, sql?: string): TypeRef {
    const plain = this.plain(typeId);
    return sql === undefined || sql === plain.sql ? plain : { ...plain, sql };
  }

  private plain(typeId: string): TypeRef {
    const cached = this.cache.get(typeId);
    if (cached) return cached;
    const type = this.introspection.getType({ id: typeId });
    const sql = this.texts.get(typeId) ?? 'unknown';
    const ref: TypeRef = type
      ? {
          sql,
          schema: type.getNamespace()?.nspname ?? '',
          name: type.typname,
          kind: kindOf(type),
          element: isArray(type) && type.typelem ? this.plain(type.typelem) : null,
          base: type.typtype === 'd' && type.typbasetype ? this.plain(type.typbasetype) : null,
          ...(this.representations.has(typeId) ? { representation: this.representations.get(typeId) } : {}),
        }
      : { sql, schema: '', name: sql, kind: 'pseudo', element: null, base: null };
    this.cache.set(typeId, ref);
    return ref;
  }
}

/** What the kind of a type depends on. */
type TypeShape = Pick<PgType, 'typtype' | 'typcategory' | 'typelem'>;

function isArray(type: TypeShape): boolean {
  return type.typcategory === 'A' && type.typelem !== null && type.typelem !== '0';
}

function kindOf(type: TypeShape): TypeKind {
  switch (type.typtype) {
    case 'c':
      return 'composite';
    case 'd':
      return 'domain';
    case 'e':
      return 'enum';
    case 'p':
      return 'pseudo';
    case 'r':
      return 'range';
    case 'm':
      return 'multirange';
    default:
      return isArray(type) ? 'array' : 'base';
  }
}

/** The catalog rows `typeRefsByOid` builds from: the types asked for and every element and base type under them. */
const TYPE_ROWS_SQL = `
WITH RECURSIVE wanted(oid) AS (
  SELECT unnest($1::oid[])
  UNION
  SELECT under.oid FROM wanted JOIN pg_catalog.pg_type t ON t.oid = wanted.oid,
    LATERAL (VALUES (t.typelem), (t.typbasetype)) AS under(oid)
  WHERE under.oid <> 0
)
SELECT t.oid::text AS id, n.nspname, t.typname, t.typtype, t.typcategory, t.typelem::text, t.typbasetype::text,
  pg_catalog.format_type(t.oid, NULL) AS sql
FROM wanted JOIN pg_catalog.pg_type t ON t.oid = wanted.oid JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace`;

interface TypeRow extends TypeShape {
  readonly id: string;
  readonly nspname: string;
  readonly typname: string;
  readonly typbasetype: string;
  readonly sql: string;
}

/**
 * TypeRefs for type OIDs outside an introspection (those PostgreSQL's Describe of a statement names), built as
 * `TypeRefs` builds them from the catalog; an OID the catalog lacks is an unknown pseudo type.
 */
export async function typeRefsByOid(client: pg.ClientBase, oids: readonly number[]): Promise<Map<number, TypeRef>> {
  const rows = new Map((await client.query<TypeRow>(TYPE_ROWS_SQL, [[...new Set(oids)]])).rows.map((row) => [row.id, row]));
  const refs = new Map<string, TypeRef>();
  const build = (id: string): TypeRef => {
    const known = refs.get(id);
    if (known) return known;
    const row = rows.get(id);
    const ref: TypeRef = row
      ? {
          sql: row.sql,
          schema: row.nspname,
          name: row.typname,
          kind: kindOf(row),
          element: isArray(row) ? build(row.typelem!) : null,
          base: row.typtype === 'd' && row.typbasetype !== '0' ? build(row.typbasetype) : null,
        }
      : { sql: 'unknown', schema: '', name: 'unknown', kind: 'pseudo', element: null, base: null };
    refs.set(id, ref);
    return ref;
  };
  return new Map(oids.map((oid) => [oid, build(String(oid))]));
}
