import { returnedRelation, typedComputedColumns, typedOnlyFunctions } from '../model/computed.js';
import { functionGroups } from '../model/project-meta.js';
import { buildRelationships, relationKey, type Relationship } from '../model/relationships.js';
import { sortByKey } from '../model/sort.js';
import type { FunctionModel, RelationModel } from '../model/types.js';
import { printValue, sections, type Printable } from './code.js';
import type { EmitContext } from './context.js';
import { functionSignatures } from './function-types.js';
import { fileHeader } from '../../runtime/generated-files.js';
import { propertyKey, stringLiteral } from './names.js';
import { insertFields, isWritable, objectType, rowFields, updateFields, type Field } from './row-types.js';
import { helperTypes, jsonType } from './supabase-helpers.js';
import { tsType, type TypeContext } from './ts-types.js';

/**
 * `database.types.ts`: the project's types in the exact shape of `supabase gen types
 * typescript`, so `createClient<Database>(url, key)` from supabase-js is typed end to end.
 */

/** The PostgREST version supabase-js tailors its types to: 13 enables `maxAffected` and to-many spreads, which the data API serves. */
const postgrestVersion = '13';

const empty = (indent: string): string => `{\n${indent}  [_ in never]: never;\n${indent}}`;

function group(entries: readonly (readonly [string, string])[], indent: string): string {
  if (entries.length === 0) return empty(indent);
  const inner = `${indent}  `;
  return `{\n${entries.map(([name, body]) => `${inner}${propertyKey(name)}:${body.startsWith('\n') ? '' : ' '}${body};\n`).join('')}${indent}}`;
}

function relationshipList(relationships: readonly Relationship[], indent: string): string {
  const forward = sortByKey(
    relationships.filter((r) => r.forward && r.join && !r.internalKey),
    (r) => [r.constraint, r.targetName, ...(r.join?.from ?? [])],
  );
  if (forward.length === 0) return '[]';
  const inner = `${indent}  `;
  const items = forward.map((r) => {
    const lines = [
      `foreignKeyName: ${stringLiteral(r.constraint)};`,
      `columns: ${printValue((r.join?.from ?? []) as Printable)};`,
      `isOneToOne: ${r.kind === 'one-to-one'};`,
      `referencedRelation: ${stringLiteral(r.targetName)};`,
      `referencedColumns: ${printValue((r.join?.to ?? []) as Printable)};`,
    ];
    return `${inner}{\n${lines.map((line) => `${inner}  ${line}\n`).join('')}${inner}},\n`;
  });
  return `[\n${items.join('')}${indent}]`;
}

/** Computed fields and relationships as `supabase gen types` adds them to a Row: after the columns, the row of a relation inline, nullable. */
function computedRowFields(context: EmitContext, relation: RelationModel, types: TypeContext, indent: string): Field[] {
  return sortByKey(typedComputedColumns(context.model, relation), (c) => [c.name]).map((c) => {
    const target = returnedRelation(context.model, c);
    const type = target ? objectType(rowFields(target, types), indent) : tsType(c.returnType, types);
    return { name: c.name, type: `${type} | null`, optional: false };
  });
}

type RelationshipMap = ReadonlyMap<string, readonly Relationship[]>;

/** `supabase gen types` lists partitions as tables, so their foreign keys and those to them count too. */
function typedRelationships(context: EmitContext): RelationshipMap {
  const partitions = context.model.partitions ?? [];
  if (partitions.length === 0) return context.relationships;
  return buildRelationships({ ...context.model, relations: [...context.model.relations, ...partitions] });
}

function relationBody(
  context: EmitContext,
  relation: RelationModel,
  typed: RelationshipMap,
  types: TypeContext,
  indent: string,
): string {
  const inner = `${indent}  `;
  const relationships = typed.get(relationKey(relation.schema, relation.name)) ?? [];
  const row = [...rowFields(relation, types, true), ...computedRowFields(context, relation, types, `${inner}  `)];
  const parts = [`${inner}Row: ${objectType(row, inner)};\n`];
  if (isWritable(relation)) {
    parts.push(`${inner}Insert: ${objectType(insertFields(relation, types), inner)};\n`);
    parts.push(`${inner}Update: ${objectType(updateFields(relation, types), inner)};\n`);
  }
  parts.push(`${inner}Relationships: ${relationshipList(relationships, inner)};\n`);
  return `{\n${parts.join('')}${indent}}`;
}

/**
 * Callable functions plus those typed only for computed relationships, overloads together, by
 * name, each group's overloads by their arguments (as postgres-meta orders them, by their text).
 */
function typedFunctionGroups(context: EmitContext): Map<string, FunctionModel[]> {
  const groups = functionGroups(context.model);
  for (const fn of typedOnlyFunctions(context.model)) {
    const key = relationKey(fn.schema, fn.name);
    groups.set(key, [...(groups.get(key) ?? []), fn]);
  }
  return new Map(sortByKey([...groups.entries()], ([key]) => [key]).map(([key, overloads]) => [key, sortByKey(overloads, (fn) => [fn.identityArguments])]));
}

function schemaBody(context: EmitContext, typed: RelationshipMap, schema: string, types: TypeContext, indent: string): string {
  const { model } = context;
  const inner = `${indent}  `;
  const groupIndent = `${inner}  `;
  const relations = model.relations.filter((r) => r.schema === schema);
  const partitions = (model.partitions ?? []).filter((r) => r.schema === schema);
  const tables = sortByKey([...relations.filter((r) => r.kind === 'table'), ...partitions], (r) => [r.name])
    .map((r) => [r.name, relationBody(context, r, typed, types, groupIndent)] as const);
  const views = relations.filter((r) => r.kind !== 'table').map((r) => [r.name, relationBody(context, r, typed, types, groupIndent)] as const);
  const functions = [...typedFunctionGroups(context).values()]
    .filter((overloads) => overloads[0]?.schema === schema)
    .map((overloads) => [overloads[0]?.name ?? '', functionSignatures(overloads, types, groupIndent, groupIndent)] as const);
  const enums = model.enums
    .filter((e) => e.schema === schema)
    .map((e) => [e.name, e.values.length === 0 ? 'never' : e.values.map(stringLiteral).join(' | ')] as const);
  const composites = model.compositeTypes
    .filter((c) => c.schema === schema)
    .map((c) => {
      const fields = c.attributes.map((a) => ({ name: a.name, type: `${tsType(a.type, types)} | null`, optional: false }));
      return [c.name, objectType(sortByKey(fields, (f) => [f.name]), groupIndent)] as const;
    });
  const members = [
    `Tables: ${group(tables, inner)};`,
    `Views: ${group(views, inner)};`,
    `Functions: ${group(functions, inner)};`,
    `Enums: ${group(enums, inner)};`,
    `CompositeTypes: ${group(composites, inner)};`,
  ];
  return `{\n${members.map((member) => `${inner}${member}\n`).join('')}${indent}}`;
}

export function emitDatabaseTypes(context: EmitContext): string {
  const types: TypeContext = { model: context.model, uses: () => undefined };
  const typed = typedRelationships(context);
  const schemas = context.model.schemas.map((schema) => `  ${propertyKey(schema)}: ${schemaBody(context, typed, schema, types, '  ')};\n`);
  const database =
    'export type Database = {\n' +
    '  // Allows to automatically instantiate createClient with right options\n' +
    "  // instead of createClient<Database, { PostgrestVersion: 'XX' }>(URL, KEY)\n" +
    '  __InternalSupabase: {\n' +
    `    PostgrestVersion: ${stringLiteral(postgrestVersion)};\n` +
    '  };\n' +
    schemas.join('') +
    '};\n';
  const constants: Printable = Object.fromEntries(
    context.model.schemas.map((schema) => [
      schema,
      {
        Enums: Object.fromEntries(context.model.enums.filter((e) => e.schema === schema).map((e) => [e.name, e.values as Printable])),
      },
    ]),
  );
  return sections(
    fileHeader(context.ref),
    jsonType,
    database,
    helperTypes(context.model.schemas[0] ?? 'public'),
    `export const Constants = ${printValue(constants)} as const;\n`,
  );
}
