import { qualifiedName, quoteIdent } from '../../runtime/db/identifiers.js';
import type { ColumnModel, RelationModel } from '../model/types.js';
import type { ApiChange, ChangeSubject } from './api-change.js';

/**
 * What a change does to the rows a table holds, as questions a database at the base's schema can
 * answer with one count: rows a cast rounds, rows a migration would refuse, values dropped. Built
 * here as SQL (identifiers quoted, no values interpolated); run by data-effects.ts.
 */
export interface DataQuestion {
  /** What the count means: `rows with a fractional part (integer rounds them)`. */
  readonly description: string;
  /** `SELECT count(*) … AS n`: one row, one bigint column `n`. */
  readonly sql: string;
  /** What the database must hold for the count to mean that: the base's relation, column, type and nullability. */
  readonly requires: { readonly schema: string; readonly table: string; readonly column: ColumnModel | null };
}

const integerRanges: Readonly<Record<string, readonly [string, string]>> = {
  int2: ['-32768', '32767'],
  int4: ['-2147483648', '2147483647'],
  int8: ['-9223372036854775808', '9223372036854775807'],
};
const fractional = new Set(['numeric', 'float4', 'float8']);
const textual = new Set(['text', 'varchar', 'bpchar', 'citext']);

/** `numeric(10,2)` → [10, 2]; `character varying(20)` → [20]; null when unconstrained. */
function modifier(column: ColumnModel): number[] | null {
  const found = /\(([^)]*)\)$/.exec(column.type.sql)?.[1];
  return found === undefined ? null : found.split(',').map(Number);
}

export function dataQuestions(change: ApiChange, subject: ChangeSubject): DataQuestion[] {
  if (change.severity !== 'breaking' || subject.kind !== 'relation' || subject.base?.kind !== 'table') return [];
  const table = subject.base;
  const from = qualifiedName(table.schema, table.name);
  const count = (condition: string | null): string => `SELECT count(*)${condition === null ? '' : ` FILTER (WHERE ${condition})`} AS n FROM ${from}`;
  const requires = (column: ColumnModel | null) => ({ schema: table.schema, table: table.name, column });
  if (change.kind === 'endpoint_removed') return [{ description: 'rows dropped with the table', sql: count(null), requires: requires(null) }];
  if (change.kind === 'key_changed' && change.message.startsWith('unique key added on (')) return uniqueQuestion(table, change, from);
  const before = subject.column?.base ?? null;
  const after = subject.column?.head ?? null;
  if (before === null) {
    if (change.kind === 'column_added' && after !== null) return [{ description: `rows that need a value for ${after.name} (adding it fails, 23502)`, sql: count(null), requires: requires(null) }];
    return [];
  }
  const c = quoteIdent(before.name);
  if (change.kind === 'column_removed') return [{ description: `rows whose ${before.name} value is dropped with it`, sql: count(`${c} IS NOT NULL`), requires: requires(before) }];
  if (change.kind === 'column_nullability_changed' && after !== null && !after.nullable) {
    return [{ description: `rows where ${before.name} is NULL (SET NOT NULL fails, 23502, unless the migration fills them first)`, sql: count(`${c} IS NULL`), requires: requires(before) }];
  }
  if (change.kind === 'column_type_changed' && after !== null) return typeQuestions(before, after, count, requires(before));
  return [];
}

function typeQuestions(before: ColumnModel, after: ColumnModel, count: (condition: string) => string, requires: DataQuestion['requires']): DataQuestion[] {
  const c = quoteIdent(before.name);
  const [from, to] = [before.type.name, after.type.name];
  const questions: DataQuestion[] = [];
  const range = integerRanges[to];
  if (range && fractional.has(from)) {
    questions.push({ description: `rows with a fractional part in ${before.name} (the cast to ${after.type.sql} rounds them)`, sql: count(`${c} <> trunc(${c})`), requires });
  }
  if (range && (fractional.has(from) || integerRanges[from])) {
    questions.push({ description: `rows with ${before.name} outside the range of ${after.type.sql} (the migration fails, 22003)`, sql: count(`round(${c}) < ${range[0]} OR round(${c}) > ${range[1]}`), requires });
  }
  const length = modifier(after);
  if ((to === 'varchar' || to === 'bpchar') && length?.length === 1 && textual.has(from)) {
    questions.push({ description: `rows with ${before.name} longer than ${length[0]} characters (the migration fails, 22001)`, sql: count(`char_length(${c}) > ${length[0]}`), requires });
  }
  if (to === 'numeric' && length?.length === 2 && (fractional.has(from) || integerRanges[from])) {
    const [precision, scale] = length as [number, number];
    const scaleBefore = modifier(before)?.[1];
    if (fractional.has(from) && (from !== 'numeric' || scaleBefore === undefined || scaleBefore > scale)) {
      questions.push({ description: `rows with ${before.name} having more than ${scale} decimal places (the cast to ${after.type.sql} rounds them)`, sql: count(`${c} <> round(${c}, ${scale})`), requires });
    }
    questions.push({ description: `rows with ${before.name} of ${precision - scale} or more integer digits (the migration fails, 22003)`, sql: count(`abs(round(${c}, ${scale})) >= 1e${precision - scale}`), requires });
  }
  if (questions.length === 0 && textual.has(from)) {
    // pg_input_is_valid (PostgreSQL 16+) reads the text as the new type would, without failing the query.
    questions.push({ description: `rows whose ${before.name} is not a valid ${after.type.sql} (the migration fails without a USING that converts them)`, sql: count(`NOT pg_input_is_valid(${c}::text, ${quoteLiteral(after.type.sql)})`), requires });
  }
  return questions;
}

function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

function uniqueQuestion(table: RelationModel, change: ApiChange, from: string): DataQuestion[] {
  const names = /^unique key added on \((.*)\)$/.exec(change.message)?.[1]?.split(', ') ?? [];
  const columns = names.map((name) => table.columns.find((c) => c.name === name));
  if (columns.length === 0 || columns.some((c) => c === undefined)) return [];
  const list = names.map(quoteIdent).join(', ');
  const notNull = names.map((n) => `${quoteIdent(n)} IS NOT NULL`).join(' AND ');
  return [{
    description: `groups of rows sharing one (${names.join(', ')}) (adding the key fails, 23505)`,
    sql: `SELECT count(*) AS n FROM (SELECT 1 FROM ${from} WHERE ${notNull} GROUP BY ${list} HAVING count(*) > 1) AS duplicates`,
    requires: { schema: table.schema, table: table.name, column: null },
  }];
}
