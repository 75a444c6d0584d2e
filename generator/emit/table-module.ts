import { tableMeta } from '../model/project-meta.js';
import { relationKey } from '../model/relationships.js';
import { docComment, Imports, printValue, sections, type Printable } from './code.js';
import { runtimeModule, type EmitContext, type TableModule } from './context.js';
import { fileHeader } from '../../runtime/generated-files.js';
import { insertFields, isWritable, objectType, rowFields, updateFields } from './row-types.js';
import type { TypeContext } from './ts-types.js';

/**
 * `tables/<name>.ts`: the wire types of one table or view, its metadata for the query
 * engine, and its route registration.
 */
export function emitTableModule(context: EmitContext, module: TableModule): string {
  const { relation } = module;
  const imports = new Imports();
  const types: TypeContext = { model: context.model, uses: (name) => imports.add('../database.types.js', name, true) };
  const writable = isWritable(relation);
  const row = objectType(rowFields(relation, types, true), '');
  const insert = writable ? objectType(insertFields(relation, types), '') : 'never';
  const update = writable ? objectType(updateFields(relation, types), '') : 'never';
  const relationships = context.relationships.get(relationKey(relation.schema, relation.name)) ?? [];
  const meta = tableMeta(context.model, relation, relationships);
  imports.add(runtimeModule, 'TableMeta', true);
  imports.add(runtimeModule, 'tableRoutes', false);
  const kindLabel = relation.kind === 'table' ? 'Table' : relation.kind === 'view' ? 'View' : 'Materialized view';
  return sections(
    fileHeader(context.ref),
    imports.print(),
    docComment(`${kindLabel} ${relation.schema}.${relation.name}${relation.comment ? `: ${relation.comment}` : ''}`) +
      `export type Row = ${row};\n`,
    (writable ? '' : '/** Not insertable: the view is not automatically updatable. */\n') + `export type Insert = ${insert};\n`,
    (writable ? '' : '/** Not updatable: the view is not automatically updatable. */\n') + `export type Update = ${update};\n`,
    `export const meta: TableMeta = ${printValue(meta as unknown as Printable)};\n`,
    '/** The data API routes of this relation, typed by its wire shapes. */\n' +
      'export const routes = tableRoutes<Row, Insert, Update>(meta);\n',
  );
}
