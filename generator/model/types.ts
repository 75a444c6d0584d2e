/**
 * The schema model: everything the emitters need to know about a project database,
 * as plain sorted JSON-serialisable data without OIDs. Introspection produces it; the
 * emitters and the runtime metadata are pure functions of it, so two databases with
 * the same schema produce the same model and the same generated code.
 */
import type { Grants, PolicyMeta } from '../../runtime/index.js';

export type TypeKind = 'base' | 'enum' | 'composite' | 'domain' | 'array' | 'range' | 'multirange' | 'pseudo';

export interface TypeRef {
  /** `format_type()` text, schema-qualified outside pg_catalog (with the column's typmod where there is one). */
  readonly sql: string;
  readonly schema: string;
  /** Catalog name (`int4`, `_text`, `mood`). */
  readonly name: string;
  readonly kind: TypeKind;
  /** Arrays: the element type. */
  readonly element: TypeRef | null;
  /** Domains: the underlying type. */
  readonly base: TypeRef | null;
  /** Domains with casts from/to `json` or `text` (PostgREST's domain representations); absent otherwise. */
  readonly representation?: DomainRepresentation;
}

/** The functions of a domain's casts: to `json` for output, from `json` for bodies, from `text` for filter values. */
export interface DomainRepresentation {
  readonly toJson?: { readonly schema: string; readonly name: string };
  readonly fromJson?: { readonly schema: string; readonly name: string };
  readonly fromText?: { readonly schema: string; readonly name: string };
}

export interface ColumnModel {
  readonly name: string;
  readonly type: TypeRef;
  readonly nullable: boolean;
  /** Default expression (`pg_get_expr`); null for none and for generated columns. */
  readonly default: string | null;
  readonly identity: 'always' | 'by default' | null;
  /** Generation expression of a `GENERATED ALWAYS AS (...) STORED` column. */
  readonly generated: string | null;
  readonly comment: string | null;
  /**
   * The default of the column's domain when the column has none (PostgreSQL's own inserts use it); absent otherwise.
   * Apart from `default` so that types and OpenAPI keep postgres-meta's reading, which ignores it.
   */
  readonly domainDefault?: string;
}

export interface KeyModel {
  readonly name: string;
  readonly columns: readonly string[];
}

export interface ForeignKeyModel {
  readonly name: string;
  readonly columns: readonly string[];
  readonly targetSchema: string;
  readonly targetName: string;
  readonly targetColumns: readonly string[];
  readonly onUpdate: ReferentialAction;
  readonly onDelete: ReferentialAction;
}

/**
 * A table outside the exposed schemas that an exposed view reads columns from: its keys carry
 * over to the view, as PostgREST's schema cache lets views inherit their base tables' keys.
 */
export interface InternalTableModel {
  readonly schema: string;
  readonly name: string;
  readonly primaryKey: KeyModel | null;
  readonly uniqueConstraints: readonly KeyModel[];
  readonly foreignKeys: readonly ForeignKeyModel[];
}

export type ReferentialAction = 'no action' | 'restrict' | 'cascade' | 'set null' | 'set default';

export interface ColumnSource {
  /** The view's column. */
  readonly column: string;
  /** The base table (never a view: chains of views are resolved) and its column. */
  readonly schema: string;
  readonly table: string;
  readonly sourceColumn: string;
}

/** What one role may do to a relation by its table privileges (the runtime's `Grants`). */
export type RoleGrants = Grants;

export interface ApiRoleGrants {
  readonly anon: RoleGrants;
  readonly authenticated: RoleGrants;
  readonly service_role: RoleGrants;
}

/** A row-level security policy, with its expressions as readable SQL (the runtime's `PolicyMeta`). */
export type PolicyModel = PolicyMeta;

export type RelationKind = 'table' | 'view' | 'materialized_view';

export interface RelationModel {
  readonly schema: string;
  readonly name: string;
  readonly kind: RelationKind;
  readonly comment: string | null;
  /** Sorted by position in the table (attnum order, gaps removed). */
  readonly columns: readonly ColumnModel[];
  readonly primaryKey: KeyModel | null;
  readonly uniqueConstraints: readonly KeyModel[];
  /** Unique indexes that back no constraint, have no predicate and no expression. */
  readonly uniqueIndexes: readonly KeyModel[];
  readonly foreignKeys: readonly ForeignKeyModel[];
  /** Views: which base-table column each simple view column passes through. */
  readonly columnSources: readonly ColumnSource[];
  /** What `pg_relation_is_updatable` allows (tables: all true; materialized views: none). */
  readonly updatable: { readonly insert: boolean; readonly update: boolean; readonly delete: boolean };
  readonly rls: { readonly enabled: boolean; readonly forced: boolean };
  readonly policies: readonly PolicyModel[];
  readonly grants: ApiRoleGrants;
}

export type ArgMode = 'in' | 'out' | 'inout' | 'variadic' | 'table';

export interface FunctionArgModel {
  /** Empty string for an unnamed argument. */
  readonly name: string;
  readonly type: TypeRef;
  readonly mode: ArgMode;
  readonly hasDefault: boolean;
}

export type Volatility = 'immutable' | 'stable' | 'volatile';

export interface FunctionModel {
  readonly schema: string;
  readonly name: string;
  /** `pg_get_function_identity_arguments`: tells overloads apart, stable across databases. */
  readonly identityArguments: string;
  /** All arguments in declaration order, OUT and TABLE columns included. */
  readonly args: readonly FunctionArgModel[];
  readonly returnType: TypeRef;
  readonly returnsSet: boolean;
  /** The `ROWS` estimate (`prorows`); 0 when the function returns no set. */
  readonly rows: number;
  readonly volatility: Volatility;
  readonly securityDefiner: boolean;
  readonly language: string;
  readonly comment: string | null;
  readonly execute: { readonly anon: boolean; readonly authenticated: boolean; readonly service_role: boolean };
}

/**
 * A function whose single parameter is a relation's row type, called as `f(row)`: a computed
 * field when it returns a value, a computed relationship when it returns rows of a relation
 * (PostgREST's rule). Kept apart from `functions`, which holds only what `/rpc` can call.
 */
export interface ComputedModel {
  readonly schema: string;
  readonly name: string;
  /** The parameter's name; empty when unnamed (only those are columns in `supabase gen types`). */
  readonly argName: string;
  readonly argType: TypeRef;
  /** The relation whose row type the parameter takes. */
  readonly sourceSchema: string;
  readonly sourceName: string;
  readonly returnType: TypeRef;
  readonly returnsSet: boolean;
  /** The `ROWS` estimate (`prorows`); 0 when the function returns no set. */
  readonly rows: number;
  readonly comment: string | null;
}

export interface EnumModel {
  readonly schema: string;
  readonly name: string;
  /** In declaration (`enumsortorder`) order, not sorted. */
  readonly values: readonly string[];
  readonly comment: string | null;
}

export interface CompositeAttributeModel {
  readonly name: string;
  readonly type: TypeRef;
}

export interface CompositeTypeModel {
  readonly schema: string;
  readonly name: string;
  readonly attributes: readonly CompositeAttributeModel[];
  readonly comment: string | null;
}

export interface SchemaModel {
  readonly modelVersion: 1;
  /** Exposed schemas in configured order; the first is the default profile. */
  readonly schemas: readonly string[];
  readonly relations: readonly RelationModel[];
  /**
   * Partitions, sorted as relations: outside the API as in PostgREST's schema cache, typed as tables
   * in database.types.ts as `supabase gen types` does. Absent when there are none, so a schema
   * without partitions keeps its fingerprint.
   */
  readonly partitions?: readonly RelationModel[];
  /** Base tables of exposed views in other schemas, sorted as relations; absent when there are none (same fingerprint). */
  readonly internalTables?: readonly InternalTableModel[];
  readonly functions: readonly FunctionModel[];
  /** Sorted by source relation, then function name. */
  readonly computed: readonly ComputedModel[];
  readonly enums: readonly EnumModel[];
  readonly compositeTypes: readonly CompositeTypeModel[];
  /** Aggregates returning a media type domain (PostgREST's media type handlers); absent when there are none (same fingerprint). */
  readonly mediaAggregates?: readonly MediaAggregateModel[];
}

/** An aggregate of one argument (a relation's row type, or `anyelement`) returning a media type domain. */
export interface MediaAggregateModel {
  readonly schema: string;
  readonly name: string;
  readonly input: TypeRef;
  readonly returnType: TypeRef;
}
