import { relationKey } from '../model/relationships.js';
import { Imports, printValue, sections } from './code.js';
import { runtimeModule, type EmitContext } from './context.js';
import { fileHeader } from '../../runtime/generated-files.js';
import { propertyKey, stringLiteral } from './names.js';

/**
 * `index.ts`: the project's definition for the runtime — its metadata (`project`), the
 * route descriptors of every table and function. The schema fingerprint is in `schema.json`, not
 * here: this file changes only when tables or functions come or go.
 */
export function emitIndexModule(context: EmitContext): string {
  const imports = new Imports();
  imports.add(runtimeModule, 'ProjectDefinition', true);
  imports.add(runtimeModule, 'ProjectMeta', true);
  const namespaceImports: string[] = [];
  for (const module of context.tables) namespaceImports.push(`import * as ${module.identifier} from ${stringLiteral(`./tables/${module.fileBase}.js`)};\n`);
  for (const module of context.functions) namespaceImports.push(`import * as ${module.identifier} from ${stringLiteral(`./rpc/${module.fileBase}.js`)};\n`);
  const entries = (items: readonly string[]): string => (items.length === 0 ? '{}' : `{\n${items.join('')}  }`);
  const list = (items: readonly string[]): string => (items.length === 0 ? '[]' : `[\n${items.join('')}  ]`);
  const tables = context.tables.map((m) => `    ${propertyKey(relationKey(m.relation.schema, m.relation.name))}: ${m.identifier}.meta,\n`);
  const functions = context.functions.map((m) => `    ${propertyKey(relationKey(m.schema, m.name))}: ${m.identifier}.meta,\n`);
  return sections(
    fileHeader(context.ref),
    imports.print() + namespaceImports.join(''),
    `export const ref = ${stringLiteral(context.ref)};\n`,
    'export const project: ProjectMeta = {\n' +
      `  schemas: ${printValue(context.model.schemas as string[])},\n` +
      `  tables: ${entries(tables)},\n` +
      `  functions: ${entries(functions)},\n` +
      '};\n',
    'export const definition: ProjectDefinition = {\n' +
      '  ref,\n' +
      '  project,\n' +
      `  tables: ${list(context.tables.map((m) => `    ${m.identifier}.routes,\n`))},\n` +
      `  functions: ${list(context.functions.map((m) => `    ${m.identifier}.routes,\n`))},\n` +
      '};\n',
  );
}
