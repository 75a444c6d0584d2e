/**
 * The one identifier-quoting function (the data API, auth hooks, the jobs, the generator's reports).
 * Every identifier written into SQL text goes through here; every value goes in as a bind parameter (runtime/rest/sql/params.ts for the data API).
 */

/** `"name"` with embedded double quotes doubled. NUL cannot occur: the parser rejects it. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** `"schema"."name"`. */
export function qualifiedName(schema: string, name: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(name)}`;
}

/** `"alias"."column"`. */
export function columnRef(alias: string, column: string): string {
  return `${quoteIdent(alias)}.${quoteIdent(column)}`;
}
