/**
 * The contract between the generator and the runtime: what generated code tells the
 * query engine about a project's tables and functions. Plain data, JSON-serialisable,
 * emitted as typed constants into `generated/<ref>/`.
 */

export type Volatility = 'immutable' | 'stable' | 'volatile';

export interface ColumnMeta {
  readonly name: string;
  /** `format_type()` of the column, schema-qualified outside pg_catalog: `integer`, `text[]`, `timestamp with time zone`, `public.mood`. */
  readonly pgType: string;
  /** The element type when `pgType` is an array, else null. */
  readonly elementType: string | null;
  /** Base type after resolving domains (equal to pgType when not a domain). */
  readonly baseType: string;
  readonly nullable: boolean;
  /** Default expression text (`pg_get_expr`), null when none. */
  readonly default: string | null;
  readonly identity: 'always' | 'by default' | null;
  /** A `GENERATED ALWAYS AS (...) STORED` column: readable, never writable. */
  readonly generated: boolean;
  readonly enumValues: readonly string[] | null;
  readonly comment: string | null;
  /** A domain's casts from/to `json` and `text` (PostgREST's domain representations); absent when it has none. */
  readonly representation?: DomainRepresentationMeta;
  /** The default of the column's domain, when the column has no default of its own (`Prefer: missing=default` uses it). */
  readonly domainDefault?: string;
}

/** Functions of a domain's casts: to `json` (output), from `json` (body values), from `text` (filter values). */
export interface DomainRepresentationMeta {
  readonly toJson?: FunctionRef;
  readonly fromJson?: FunctionRef;
  readonly fromText?: FunctionRef;
}

/** One side of a foreign key, already oriented from the table that owns this relation. */
export interface JoinColumns {
  /** Columns of the table this relation belongs to. */
  readonly from: readonly string[];
  /** Matching columns of the target (or junction) table, same order. */
  readonly to: readonly string[];
}

export interface JunctionMeta {
  readonly schema: string;
  readonly name: string;
  /** FK from the junction to this table: `from` = this table's columns, `to` = junction columns. */
  readonly sourceConstraint: string;
  readonly source: JoinColumns;
  /** FK from the junction to the target: `from` = junction columns, `to` = target columns. */
  readonly targetConstraint: string;
  readonly target: JoinColumns;
}

export type RelationKind = 'many-to-one' | 'one-to-one' | 'one-to-many' | 'many-to-many';

export interface RelationMeta {
  readonly kind: RelationKind;
  /** The target relation (table or view). */
  readonly targetSchema: string;
  readonly targetName: string;
  /** FK constraint name (for many-to-many: the junction table name is also a valid hint). */
  readonly constraint: string;
  /** Direct join: this table's columns = target's columns. Absent for many-to-many. */
  readonly join: JoinColumns | null;
  readonly junction: JunctionMeta | null;
}

export interface FunctionRef {
  readonly schema: string;
  readonly name: string;
}

/** A computed field: `f(row)` of a function over the table's row type, selectable, filterable and orderable like a column. */
export interface ComputedFieldMeta extends ColumnMeta {
  readonly function: FunctionRef;
}

/**
 * A computed relationship: `f(row)` returning rows of `target`, embedded under the function's
 * name. It shadows foreign-key relationships to a relation of the same name (PostgREST).
 */
export interface ComputedRelationMeta {
  readonly function: FunctionRef;
  readonly targetSchema: string;
  readonly targetName: string;
  /** `RETURNS t` or `ROWS 1`: an object, else an array. */
  readonly toOne: boolean;
}

export interface Grants {
  readonly select: boolean;
  readonly insert: boolean;
  readonly update: boolean;
  readonly delete: boolean;
}

export interface PolicyMeta {
  readonly name: string;
  readonly command: 'ALL' | 'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE';
  readonly permissive: boolean;
  readonly roles: readonly string[];
  readonly using: string | null;
  readonly withCheck: string | null;
}

export interface TableMeta {
  readonly schema: string;
  readonly name: string;
  readonly kind: 'table' | 'view' | 'materialized_view';
  readonly comment: string | null;
  readonly columns: readonly ColumnMeta[];
  readonly primaryKey: readonly string[];
  /** Unique constraints/indexes other than the primary key, each a column list. */
  readonly uniqueKeys: readonly (readonly string[])[];
  readonly relations: readonly RelationMeta[];
  /** Not part of `*`: selected by name only. */
  readonly computedFields: readonly ComputedFieldMeta[];
  readonly computedRelations: readonly ComputedRelationMeta[];
  /** What the relation can do at all, whatever the grants (`pg_relation_is_updatable`, INSTEAD OF triggers included). */
  readonly updatable: { readonly insert: boolean; readonly update: boolean; readonly delete: boolean };
  /** What each API role may do according to table grants. */
  readonly grants: { readonly anon: Grants; readonly authenticated: Grants; readonly service_role: Grants };
  readonly rls: { readonly enabled: boolean; readonly forced: boolean; readonly policies: readonly PolicyMeta[] };
  /** Aggregates over this relation's rows (or over `anyelement`) returning a media type domain; absent when none. */
  readonly mediaHandlers?: readonly MediaHandlerMeta[];
}

/**
 * A PostgREST media type handler: a domain named like a media type (`create domain "image/png" as bytea`,
 * `"*\/*"` for any) returned by a function, or by an aggregate over a relation's rows.
 */
export interface MediaHandlerMeta {
  /** The domain's name: `image/png`, `text/csv`, `*\/*`. */
  readonly mediaType: string;
  /** The domain is over bytea: the body is its bytes, not text. */
  readonly binary: boolean;
  /** The aggregate that builds the body from the rows; null when the function returns the value itself. */
  readonly aggregate: { readonly schema: string; readonly name: string; readonly anyElement: boolean } | null;
}

export interface FunctionArgMeta {
  /** Empty string for an unnamed argument. */
  readonly name: string;
  readonly pgType: string;
  readonly hasDefault: boolean;
  readonly variadic: boolean;
}

export type ReturnKind = 'scalar' | 'composite' | 'void';

export interface FunctionMeta {
  readonly schema: string;
  readonly name: string;
  readonly args: readonly FunctionArgMeta[];
  readonly returnType: string;
  readonly returnsSet: boolean;
  /** scalar: a base/domain/enum/array/json value; composite: a row type (table, view, composite type, OUT params, RETURNS TABLE). */
  readonly returnKind: ReturnKind;
  /** For composite returns of a table or view type: that relation, so select/filters/embeds apply. */
  readonly returnRelation: { readonly schema: string; readonly name: string } | null;
  /** Column names and types of a composite result (OUT/TABLE params, composite type, table row). */
  readonly returnColumns: readonly { readonly name: string; readonly pgType: string }[];
  readonly volatility: Volatility;
  readonly securityDefiner: boolean;
  readonly comment: string | null;
  /** A scalar return of a media type domain: the function is that handler; absent otherwise. */
  readonly mediaHandler?: MediaHandlerMeta;
}

export interface ProjectMeta {
  /** Exposed schemas; the first is the default profile. */
  readonly schemas: readonly string[];
  /** Keyed by `schema.name`. */
  readonly tables: Readonly<Record<string, TableMeta>>;
  /** Keyed by `schema.name`; overloads share a key. */
  readonly functions: Readonly<Record<string, readonly FunctionMeta[]>>;
}
