import { schemaRef, type JsonSchema } from './json-schema.js';

/**
 * The parts of the document every project shares: the data API's error object and
 * error responses (statuses of section 7 of the service document, then PostgREST's),
 * and the query parameters and headers common to all table operations.
 */

export const ERROR_SCHEMA = 'Error';

export const errorSchema: JsonSchema = {
  type: 'object',
  description: 'Error of the data API (PostgREST form).',
  required: ['code', 'message', 'details', 'hint'],
  properties: {
    code: {
      type: 'string',
      description: 'A PostgreSQL SQLSTATE (five characters, e.g. `23505`, `42501`) or a PostgREST code (`PGRST100` ...).',
    },
    message: { type: 'string', description: 'Error text.' },
    details: { type: ['string', 'null'], description: 'More detail, e.g. the key that was duplicated.' },
    hint: { type: ['string', 'null'], description: 'A suggestion for fixing the request.' },
  },
};

function errorResponse(description: string, example: { code: string; message: string }): JsonSchema {
  return {
    description,
    content: {
      'application/json': {
        schema: schemaRef(ERROR_SCHEMA),
        example: { ...example, details: null, hint: null },
      },
    },
  };
}

/** `#/components/responses/<name>` for each error status. */
export const errorResponses: Readonly<Record<string, JsonSchema>> = {
  BadRequest: errorResponse(
    'Bad request: a query parameter, header or body that does not parse (`PGRST100`, `PGRST102`), an unknown column ' +
      '(`42703`, `PGRST204`), a value that does not cast (`22P02`), a not-null violation (`23502`), a check-constraint ' +
      'violation (`23514`) or an SQL syntax error (`42601`).',
    { code: '42703', message: 'column posts.nope does not exist' },
  ),
  Unauthorized: errorResponse(
    'No key, or a key or token that is not valid for this project (`PGRST301`), missing (`PGRST302`) or expired (`PGRST303`).',
    { code: 'PGRST302', message: 'No API key found in request' },
  ),
  Forbidden: errorResponse(
    'Refused by a grant or by row-level security (`42501`, insufficient_privilege), e.g. a new row that violates a policy.',
    { code: '42501', message: 'new row violates row-level security policy for table "todos"' },
  ),
  NotFound: errorResponse(
    'The table or function does not exist (`42P01` undefined_table, `PGRST202` for a function).',
    { code: '42P01', message: "Could not find the table 'public.nope' in the schema cache" },
  ),
  MethodNotAllowed: errorResponse(
    'Method not supported here (`PGRST117`), or a write attempted in a read-only transaction (`25006`, e.g. a volatile function called with GET).',
    { code: 'PGRST117', message: 'Unsupported HTTP method: TRACE' },
  ),
  NotAcceptable: errorResponse(
    '`Accept: application/vnd.pgrst.object+json` and the result is not exactly one row (`PGRST116`), or an unsupported media type (`PGRST107`).',
    { code: 'PGRST116', message: 'Cannot coerce the result to a single JSON object' },
  ),
  Conflict: errorResponse(
    'A unique (`23505`, unique_violation) or foreign-key (`23503`, foreign_key_violation) constraint refused the change.',
    { code: '23505', message: 'duplicate key value violates unique constraint "tags_name_key"' },
  ),
  RangeNotSatisfiable: errorResponse(
    'The requested range (`Range` header, `limit`/`offset`) cannot be satisfied (`PGRST103`).',
    { code: 'PGRST103', message: 'Requested range not satisfiable' },
  ),
  ServerError: errorResponse('Unexpected error (any other database error).', { code: 'XX000', message: 'internal error' }),
};

const ref = (name: string): JsonSchema => ({ $ref: `#/components/responses/${name}` });

/** The error responses an operation can give, by kind of operation. */
export function errorRefs(kind: 'read' | 'write' | 'insert' | 'rpc'): Record<string, JsonSchema> {
  const common: Record<string, JsonSchema> = {
    '400': ref('BadRequest'),
    '401': ref('Unauthorized'),
    '403': ref('Forbidden'),
    '404': ref('NotFound'),
    '500': ref('ServerError'),
  };
  if (kind === 'read' || kind === 'rpc') common['406'] = ref('NotAcceptable');
  if (kind === 'read') common['416'] = ref('RangeNotSatisfiable');
  if (kind === 'rpc') common['405'] = ref('MethodNotAllowed');
  if (kind !== 'read') common['409'] = ref('Conflict');
  return common;
}

const OPERATORS =
  '`eq`, `neq`, `gt`, `gte`, `lt`, `lte`, `like` and `ilike` (`*` stands for `%`), `match` and `imatch` (POSIX regex), ' +
  '`in.(a,b,c)`, `is.null`/`is.not_null`/`is.true`/`is.false`/`is.unknown`, full-text `fts`/`plfts`/`phfts`/`wfts` ' +
  '(optionally with a configuration: `fts(english).cat`), arrays and ranges `cs`, `cd`, `ov`, `sl`, `sr`, `nxr`, `nxl`, `adj`; ' +
  '`eq(any).{a,b}` and `like(all).{...}` compare with several values. Prefix `not.` negates: `not.eq.5`, `not.in.(1,2)`.';

/** How to write a filter, for the document's introduction and each filter parameter. */
export const FILTER_SYNTAX = `A filter is \`?<column>=<operator>.<value>\`. Operators: ${OPERATORS}`;

/** No `example`s: Swagger UI would put them into "Try it out" as values. */
const query = (name: string, description: string, schema: JsonSchema): JsonSchema => ({ name, in: 'query', required: false, description, schema });

const header = (name: string, description: string, schema: JsonSchema): JsonSchema => ({ name, in: 'header', required: false, description, schema });

/** `#/components/parameters/<name>`. */
export const commonParameters: Readonly<Record<string, JsonSchema>> = {
  select: query(
    'select',
    'Columns to return, comma-separated; `*` or absent = all. Embed related rows by foreign key with `related(cols)` ' +
      '(to-one: an object, to-many: an array), rename with `alias:column`, cast with `column::type`, ' +
      'read JSON with `column->key` / `column->>key`. Aggregates, when the project enables them (`api.aggregates`; ' +
      'otherwise 400 `PGRST123`): `count()`, `column.sum()`, `column.avg()`, `column.min()`, `column.max()`, `column.count()`, ' +
      'with an alias before and casts around them (`total:amount::numeric.sum()::int`); every other selected column and ' +
      'embed groups the result (`select=placed,amount.sum()`), inside embeds too (`related(amount.sum())`).',
    { type: 'string' },
  ),
  order: query(
    'order',
    'Ordering: `column.asc` or `column.desc`, optionally `.nullsfirst`/`.nullslast`, comma-separated for several columns, e.g. `id.desc,name.asc`.',
    { type: 'string' },
  ),
  limit: query('limit', 'Maximum number of rows.', { type: 'integer', minimum: 0 }),
  offset: query('offset', 'Rows to skip (zero-based): `limit=10&offset=20` gives rows 20 to 29.', { type: 'integer', minimum: 0 }),
  count: query(
    'count',
    'Count the matching rows into `Content-Range` (`START-END/TOTAL`): `exact` runs `count(*)`, `planned` uses the ' +
      "planner's estimate, `estimated` is exact up to a threshold and planned above it.",
    { type: 'string', enum: ['exact', 'planned', 'estimated'] },
  ),
  or: query(
    'or',
    'Disjunction of filters: `(<column>.<operator>.<value>,...)`, e.g. `(id.eq.1,id.eq.2)`, nestable with `and(...)`/`or(...)`; `not.or=(...)` negates.',
    { type: 'string' },
  ),
  and: query('and', 'Conjunction of filters, written like `or`; useful inside `or` or with `not.and`.', { type: 'string' }),
  columns: query(
    'columns',
    'For inserts and updates: only these body keys are used (comma-separated); missing keys take the column default with `Prefer: missing=default`.',
    { type: 'string' },
  ),
  on_conflict: query(
    'on_conflict',
    'Upsert target: the unique columns that decide a conflict (with `Prefer: resolution=merge-duplicates|ignore-duplicates`).',
    { type: 'string' },
  ),
  Range: header(
    'Range',
    'Rows by position as `START-END` (zero-based, inclusive, e.g. `0-9`) or `START-`; combined with `limit`/`offset`.',
    { type: 'string', pattern: '^\\d+-\\d*$' },
  ),
  'Prefer.read': header(
    'Prefer',
    'Preferences (RFC 7240), comma-separated: `count=exact|planned|estimated`, `handling=strict|lenient`, `timezone=<IANA zone>`.',
    { type: 'string' },
  ),
  'Prefer.write': header(
    'Prefer',
    'Preferences (RFC 7240), comma-separated: `return=representation` (the default here: changed rows are returned) ' +
      '`|minimal|headers-only`, `count=exact`, `resolution=merge-duplicates|ignore-duplicates` (upsert, POST), ' +
      '`missing=default|null`, `max-affected=<n>` with `handling=strict`, `tx=commit|rollback`.',
    { type: 'string' },
  ),
};

export const parameterRef = (name: string): JsonSchema => ({ $ref: `#/components/parameters/${name}` });

export const CONTENT_RANGE: JsonSchema = {
  description: 'Rows in the body and the total: `START-END/TOTAL`, `*` for an unknown total, `*/TOTAL` for an empty page.',
  schema: { type: 'string', pattern: '^(\\d+-\\d+|\\*)/(\\d+|\\*)$' },
};
