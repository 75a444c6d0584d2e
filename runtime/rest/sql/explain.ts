import type { PlanRequest } from '../parse/ast.js';
import type { SqlQuery } from './params.js';

/**
 * The request's one statement under EXPLAIN with the client's options, same values. With
 * `analyze` it runs, writes included, and commits like the statement would (PostgREST's
 * rule; `Prefer: tx=rollback` undoes it).
 */
export function explainSql(statement: SqlQuery, plan: PlanRequest): SqlQuery {
  const options = [`FORMAT ${plan.format.toUpperCase()}`, ...plan.options.map((o) => o.toUpperCase())];
  return { text: `EXPLAIN (${options.join(', ')}) ${statement.text}`, values: statement.values };
}

/** EXPLAIN's rows as one text: each line (the JSON document in FORMAT JSON) followed by a newline. */
export function planText(rows: readonly Record<string, unknown>[]): string {
  return rows.map((row) => {
    const line = row['QUERY PLAN'];
    return `${typeof line === 'string' ? line : JSON.stringify(line)}\n`;
  }).join('');
}
