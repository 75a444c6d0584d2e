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

function isArray(type: PgType): boolean {
  return type.typcategory === 'A' && type.typelem !== null && type.typelem !== '0';
}

function kindOf(type: PgType): TypeKind {
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
