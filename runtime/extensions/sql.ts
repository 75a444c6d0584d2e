import type { SqlQuery } from '../rest/sql/params.js';

/**
 * A tagged template as one parameterised statement: every interpolated value is a bind
 * parameter (`$n`), never SQL text, so extension code cannot build an injectable query.
 */
export function sqlQuery(strings: TemplateStringsArray, values: readonly unknown[]): SqlQuery {
  let text = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) text += `$${i + 1}${strings[i + 1] ?? ''}`;
  return { text, values };
}
