/**
 * The typed request AST: what a PostgREST-style request asks for, before any metadata is
 * consulted (beyond the media type handlers `Accept` chooses among). Produced by `parseRequest`,
 * consumed by the SQL builders.
 */
import type { MediaHandlerMeta } from '../metadata.js';

export interface JsonStep {
  readonly arrow: '->' | '->>';
  readonly key: string;
  /** True when `key` is an array index (`->0`, `->-1`). */
  readonly index: boolean;
}

export interface Field {
  readonly name: string;
  readonly jsonPath: readonly JsonStep[];
}

export interface StarSelect { readonly type: 'star' }

export type AggregateFunction = 'sum' | 'avg' | 'count' | 'max' | 'min';

/** `col.sum()::cast`: the function and the cast of its result (the input cast is the column's `cast`). */
export interface Aggregate {
  readonly fn: AggregateFunction;
  readonly cast: string | null;
}

export interface ColumnSelect {
  readonly type: 'column';
  /** `count()` without a column has the field `*`. */
  readonly field: Field;
  readonly alias: string | null;
  readonly cast: string | null;
  /** Present for `col.sum()`, `count()`...; absent for a plain column. */
  readonly aggregate?: Aggregate;
}

export type JoinType = 'inner' | 'left';

export interface EmbedSelect {
  readonly type: 'embed';
  /** Table name, FK constraint name or FK column name. */
  readonly name: string;
  readonly alias: string | null;
  readonly hint: string | null;
  readonly joinType: JoinType | null;
  readonly spread: boolean;
  readonly select: readonly SelectItem[];
}

export type SelectItem = StarSelect | ColumnSelect | EmbedSelect;

export type SimpleOperator = 'neq' | 'cs' | 'cd' | 'ov' | 'sl' | 'sr' | 'nxr' | 'nxl' | 'adj';
export type QuantOperator = 'eq' | 'gt' | 'gte' | 'lt' | 'lte' | 'like' | 'ilike' | 'match' | 'imatch';
export type FtsOperator = 'fts' | 'plfts' | 'phfts' | 'wfts';
export type IsValue = 'null' | 'not_null' | 'true' | 'false' | 'unknown';

export type Operation =
  | { readonly kind: 'simple'; readonly op: SimpleOperator; readonly value: string }
  | { readonly kind: 'quant'; readonly op: QuantOperator; readonly quantifier: 'any' | 'all' | null; readonly value: string }
  | { readonly kind: 'in'; readonly values: readonly string[] }
  | { readonly kind: 'is'; readonly value: IsValue }
  | { readonly kind: 'isdistinct'; readonly value: string }
  | { readonly kind: 'fts'; readonly op: FtsOperator; readonly language: string | null; readonly value: string };

export interface OpExpr {
  readonly negated: boolean;
  readonly operation: Operation;
}

export interface FilterCondition {
  readonly type: 'filter';
  /** A column (or, with `is.null`/`not.is.null`, an embed name: resolved against the select). */
  readonly field: Field;
  readonly expr: OpExpr;
}

export interface LogicCondition {
  readonly type: 'logic';
  readonly op: 'and' | 'or';
  readonly negated: boolean;
  readonly children: readonly Condition[];
}

export type Condition = FilterCondition | LogicCondition;

export interface OrderTerm {
  /** Set for a related order `rel(col).desc` on a to-one embed. */
  readonly relation: string | null;
  readonly field: Field;
  readonly direction: 'asc' | 'desc' | null;
  readonly nulls: 'first' | 'last' | null;
}

/** Something that applies to one level of the embed tree; `path` [] is the root. */
export interface Scoped<T> {
  readonly path: readonly string[];
  readonly value: T;
}

export interface Range {
  readonly offset: number;
  /** null = unbounded. */
  readonly limit: number | null;
}

export type CountMode = 'exact' | 'planned' | 'estimated';
export type ReturnPreference = 'minimal' | 'headers-only' | 'representation';

export interface Preferences {
  readonly return: ReturnPreference | null;
  readonly count: CountMode | null;
  readonly resolution: 'merge-duplicates' | 'ignore-duplicates' | null;
  readonly missing: 'default' | 'null' | null;
  readonly handling: 'strict' | 'lenient' | null;
  readonly tx: 'commit' | 'rollback' | null;
  readonly timezone: string | null;
  readonly maxAffected: number | null;
}

export interface BuiltInMedia {
  readonly kind: 'json' | 'object' | 'csv';
  /** `nulls=stripped` on vnd.pgrst.array/object. */
  readonly stripNulls: boolean;
}

/** A media type handler of the database chose the body (PostgREST 12's media type handlers). */
export interface HandlerMedia {
  readonly kind: 'handler';
  readonly stripNulls: false;
  readonly handler: MediaHandlerMeta;
  /** The answer's `Content-Type`. */
  readonly contentType: string;
}

export type MediaType = BuiltInMedia | HandlerMedia;

export type PlanOption = 'analyze' | 'verbose' | 'settings' | 'buffers' | 'wal';

/** `Accept: application/vnd.pgrst.plan+json; for="…"; options=analyze|verbose`: EXPLAIN the statement instead of running it. */
export interface PlanRequest {
  readonly format: 'json' | 'text';
  /** Known options in PostgREST's order; unknown ones are ignored. */
  readonly options: readonly PlanOption[];
}

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
export type Action = 'read' | 'insert' | 'update' | 'delete' | 'call';

/** A JSON array of row objects to write. */
export interface RowsPayload {
  readonly kind: 'rows';
  /** JSON text of an array of objects, passed to PostgreSQL unparsed. */
  readonly json: string;
  /** Keys of the rows (or the `columns=` list), in order of first appearance. */
  readonly keys: readonly string[];
  readonly rowCount: number;
  /** Keys of `columns=` that no row gives (set only when there are some): `missing=default` fills them. */
  readonly absent?: readonly string[];
}

/** Arguments of an RPC call. */
/** Parameter types a raw (non-JSON) RPC body goes to: `text/plain`, `text/xml`, `application/octet-stream`. */
export type RawBodyType = 'text' | 'xml' | 'bytea';

export interface ArgsPayload {
  readonly kind: 'args';
  /**
   * JSON text of the whole body (POST) or of an object built from query arguments (GET); for a raw
   * body its text, or for `application/octet-stream` its bytes in bytea's hex form (`\x…`).
   */
  readonly json: string;
  /** Top-level keys sent ("" names an unnamed parameter); null when the JSON body is not an object; [] for a raw body. */
  readonly keys: readonly string[] | null;
  /** True for a POST JSON or raw body (it may go whole to a single unnamed parameter). */
  readonly fromBody: boolean;
  /** A raw body: the type of the single unnamed parameter that can take it. */
  readonly raw: RawBodyType | null;
  /**
   * The whole JSON body when `json` holds less of it: the first object of an array of objects, or the keys
   * `?columns=` names (as PostgREST); a single unnamed json parameter still takes all of it. Else null.
   */
  readonly whole?: string | null;
}

export type Payload = RowsPayload | ArgsPayload;

export interface ApiRequest {
  readonly action: Action;
  readonly method: HttpMethod;
  /** The schema chosen by Accept-Profile / Content-Profile (default: the first exposed). */
  readonly schema: string;
  /** Relation or function name. */
  readonly target: string;
  readonly select: readonly SelectItem[];
  /** Filters and logic trees, root and embedded. */
  readonly conditions: readonly Scoped<Condition>[];
  readonly orders: readonly Scoped<readonly OrderTerm[]>[];
  /** Embedded limit/offset (path never empty). */
  readonly embedRanges: readonly Scoped<Range>[];
  /** Root range after intersecting limit/offset with the Range header. */
  readonly range: Range;
  /** From `?count=` or `Prefer: count=` (the query parameter wins). */
  readonly count: CountMode | null;
  readonly preferences: Preferences;
  /** The representation; with `plan`, the one whose statement is explained (the `for` parameter). */
  readonly media: MediaType;
  /** Set when the client asked for the execution plan (only offered when the project enables it). */
  readonly plan: PlanRequest | null;
  readonly payload: Payload | null;
  /** `columns=` list for inserts/updates. */
  readonly columns: readonly string[] | null;
  readonly onConflict: readonly string[] | null;
  /** A read's `Content-Location`: `/<name>?<canonical query>`, as PostgREST answers it. */
  readonly contentLocation?: string;
}
