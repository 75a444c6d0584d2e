import { typedComputedColumns } from '../model/computed.js';
import { tableMeta } from '../model/project-meta.js';
import { relationKey } from '../model/relationships.js';
import { columnDeclaration } from '../../runtime/rest/table-declaration.js';
import { docComment, Imports, oneLine, printValue, sections, type Printable } from './code.js';
import { runtimeModule, type EmitContext, type TableModule } from './context.js';
import { fileHeader } from '../../runtime/generated-files.js';
import { stringLiteral } from './names.js';
import { isWritable } from './row-types.js';

/**
 * `tables/<name>.ts`: the wire types of one table or view, its metadata for the query
 * engine, and its route registration. The wire types are those of `database.types.ts`
 * (stated once, there); each column is one line of metadata with its defaults left out.
 */
export function emitTableModule(context: EmitContext, module: TableModule): string {
  const { relation } = module;
  const imports = new Imports();
  const writable = isWritable(relation);
  const group = relation.kind === 'table' ? 'Tables' : 'Views';
  const entry = `Database[${stringLiteral(relation.schema)}][${stringLiteral(group)}][${stringLiteral(relation.name)}]`;
  imports.add('../database.types.js', 'Database', true);
  // database.types.ts adds computed fields to a Row as supabase gen types does; the data API's `*` leaves them out.
  const computed = typedComputedColumns(context.model, relation).map((c) => stringLiteral(c.name)).sort();
  const row = computed.length > 0 ? `Omit<${entry}["Row"], ${computed.join(' | ')}>` : `${entry}["Row"]`;
  const relationships = context.relationships.get(relationKey(relation.schema, relation.name)) ?? [];
  const full = tableMeta(context.model, relation, relationships);
  const meta = { ...full, columns: full.columns.map((column) => oneLine(columnDeclaration(column) as unknown as Printable)) };
  imports.add(runtimeModule, 'TableMeta', true);
  imports.add(runtimeModule, 'defineTable', false);
  imports.add(runtimeModule, 'tableRoutes', false);
  const kindLabel = relation.kind === 'table' ? 'Table' : relation.kind === 'view' ? 'View' : 'Materialized view';
  return sections(
    fileHeader(context.ref),
    imports.print(),
    docComment(`${kindLabel} ${relation.schema}.${relation.name}${relation.comment ? `: ${relation.comment}` : ''}`) +
      `export type Row = ${row};\n`,
    writable
      ? `export type Insert = ${entry}["Insert"];\nexport type Update = ${entry}["Update"];\n`
      : '/** Neither insertable nor updatable: the view is not automatically updatable. */\nexport type Insert = never;\nexport type Update = never;\n',
    `export const meta: TableMeta = defineTable(${printValue(meta as unknown as Printable)});\n`,
    '/** The data API routes of this relation, typed by its wire shapes. */\n' +
      'export const routes = tableRoutes<Row, Insert, Update>(meta);\n',
  );
}
