import type { DescribedQuery } from '../extension-sql/check-queries.js';
import { resolveDomain } from '../model/domains.js';
import { compareCodePoints } from '../model/sort.js';
import type { SchemaModel, TypeRef } from '../model/types.js';
import { docComment, sections } from './code.js';
import { fileHeader, withFileFingerprint } from '../../runtime/generated-files.js';
import { stringLiteral } from './names.js';
import { objectType } from './row-types.js';
import { nullable, tsType, type TypeContext } from './ts-types.js';

/**
 * `extension-queries.ts`: the parameter and row types of each query of the project's extension, by its text as
 * `ctx.sql` sends it, from PostgreSQL's Describe. Gantry's extension typecheck gives each `ctx.sql` template its
 * entry (runtime/extensions/typecheck.ts).
 */

/**
 * What node-postgres, which runs `ctx.sql`, hands over where it differs from the API's JSON that `tsType` types:
 * int8 and numeric as strings (no precision lost), date and timestamps as `Date`, bytea as `Buffer`.
 */
const driverTypes: Readonly<Record<string, string>> = { int8: 'string', numeric: 'string', date: 'Date', timestamp: 'Date', timestamptz: 'Date', bytea: 'Buffer' };

function rowType(type: TypeRef, context: TypeContext): string {
  const resolved = resolveDomain(type);
  if (resolved.kind === 'array' && resolved.element) {
    const element = rowType(resolved.element, context);
    return element.includes(' ') ? `(${element})[]` : `${element}[]`;
  }
  return (resolved.kind === 'base' && driverTypes[resolved.name]) || tsType(type, context);
}

/** A parameter takes what the API's type says, what node-postgres sends as the same value, or null (SQL NULL). */
function paramType(type: TypeRef, context: TypeContext): string {
  const api = tsType(type, context);
  const driver = rowType(type, context);
  return nullable(api === driver ? api : `${api} | ${driver}`, true);
}

function queryEntry(query: DescribedQuery, context: TypeContext): string {
  const params = `[${query.params.map((p) => paramType(p, context)).join(', ')}]`;
  // node-postgres keeps the last of two columns of one name.
  const columns = [...new Map(query.columns.map((c) => [c.name, c])).values()];
  const row = objectType(columns.map((c) => ({ name: c.name, type: nullable(rowType(c.type, context), c.nullable), optional: false })), '    ');
  return `  ${stringLiteral(query.text)}: {\n    params: ${params};\n    row: ${row};\n  };\n`;
}

export function emitExtensionQueries(ref: string, model: SchemaModel, queries: readonly DescribedQuery[]): string {
  const uses = new Set<'Database' | 'Json'>();
  const context: TypeContext = { model, uses: (name) => uses.add(name) };
  const sorted = [...queries].sort((a, b) => compareCodePoints(a.text, b.text));
  const entries = sorted.map((q) => queryEntry(q, context)).join('');
  const imports = uses.size === 0 ? '' : `import type { ${[...uses].sort().join(', ')} } from "./database.types.js";\n`;
  return withFileFingerprint(
    sections(
      fileHeader(ref) + imports,
      docComment(
        `The queries of extensions/${ref}/ by their text as ctx.sql sends it (each interpolation \`$n\`), with the types of\n` +
          "their parameters and rows from PostgreSQL's Describe; a column is nullable unless traced to a NOT NULL column.",
      ) +
        (entries === '' ? 'export interface ExtensionQueries {}\n' : `export interface ExtensionQueries {\n${entries}}\n`),
      'export type QueryRow<T extends string> = T extends keyof ExtensionQueries ? ExtensionQueries[T]["row"] : Record<string, unknown>;\n' +
        'export type QueryParams<T extends string> = T extends keyof ExtensionQueries ? ExtensionQueries[T]["params"] : unknown[];\n',
    ),
  );
}
