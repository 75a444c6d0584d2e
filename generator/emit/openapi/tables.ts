import type { Grants } from '../../../runtime/index.js';
import { computedFields } from '../../model/computed.js';
import { mediaHandlerContent, relationMediaHandlers } from '../../model/media-handlers.js';
import { tableMeta } from '../../model/project-meta.js';
import { relationKey, type Relationship } from '../../model/relationships.js';
import { sortByKey } from '../../model/sort.js';
import type { ColumnModel, ComputedModel, RelationModel, SchemaModel } from '../../model/types.js';
import type { EmitContext } from '../context.js';
import { ComponentNames } from './component-names.js';
import { defaultValue, nullable, schemaRef, typeSchema, type JsonSchema } from './json-schema.js';
import { API_ROLES, rolesSentence, type ApiRole } from './roles.js';
import { CONTENT_RANGE, errorRefs, FILTER_SYNTAX, parameterRef } from './shared.js';

/** Component keys of one relation's schemas. */
export interface RelationKeys {
  readonly row: string;
  readonly insert: string;
  readonly update: string;
}

export function relationKeys(base: string): RelationKeys {
  return { row: base, insert: `${base}.Insert`, update: `${base}.Update` };
}

/** What each role may do to the relation: grants narrowed by what the relation can do at all. */
export function relationGrants(model: SchemaModel, relation: RelationModel): Readonly<Record<ApiRole, Grants>> {
  return tableMeta(model, relation, []).grants;
}

function rolesFor(grants: Readonly<Record<ApiRole, Grants>>, privilege: keyof Grants): ApiRole[] {
  return API_ROLES.filter((role) => grants[role][privilege]);
}

const byName = (relation: RelationModel): ColumnModel[] => sortByKey(relation.columns, (c) => [c.name]);

/** Computed by PostgreSQL and refusing values: generated columns and GENERATED ALWAYS identities. */
function isComputed(column: ColumnModel): boolean {
  return column.identity === 'always' || column.generated !== null;
}

function keyNotes(relation: RelationModel, column: ColumnModel): string[] {
  const notes: string[] = [];
  if (relation.primaryKey?.columns.includes(column.name)) notes.push('Primary key.');
  for (const fk of relation.foreignKeys) {
    const index = fk.columns.indexOf(column.name);
    if (index >= 0) notes.push(`References \`${fk.targetName}.${fk.targetColumns[index] ?? ''}\` (\`${fk.name}\`).`);
  }
  if (column.identity !== null) notes.push(`Identity (generated ${column.identity}).`);
  if (column.generated !== null) notes.push(`Generated: \`${column.generated}\`.`);
  if (column.default !== null) notes.push(`Default: \`${column.default}\`.`);
  return notes;
}

function columnSchema(model: SchemaModel, relation: RelationModel, column: ColumnModel, forWrite: boolean): JsonSchema {
  const base = typeSchema(column.type, model);
  const description = [column.comment, base.description, ...keyNotes(relation, column)].filter((part) => part).join(' ');
  const schema: Record<string, unknown> = { ...nullable(base, column.nullable), 'x-pg-type': column.type.sql };
  if (description !== '') schema.description = description;
  else delete schema.description;
  if (!forWrite && isComputed(column)) schema.readOnly = true;
  if (column.default !== null) {
    const value = defaultValue(column.default, base);
    if (value !== undefined) schema.default = value;
  }
  return schema;
}

/** A computed field (`f(row)` returning a value): read-only, and present only when `select` names it. */
function computedFieldSchema(model: SchemaModel, computed: ComputedModel): JsonSchema {
  const base = typeSchema(computed.returnType, model);
  const description = [
    computed.comment,
    base.description,
    `Computed field: \`${computed.schema}.${computed.name}(${computed.sourceName})\`, returned only when \`select\` names it (\`*\` does not include it); usable in filters and \`order\`.`,
  ].filter((part) => part).join(' ');
  return { ...nullable(base, true), 'x-pg-type': computed.returnType.sql, readOnly: true, description };
}

function rowSchema(model: SchemaModel, relation: RelationModel): JsonSchema {
  const columns = byName(relation);
  const computed = computedFields(model, relation).filter((c) => !columns.some((column) => column.name === c.name));
  return {
    type: 'object',
    description: [relation.comment, `A row of \`${relation.name}\` as \`select=*\` returns it.`].filter((p) => p).join('\n\n'),
    required: columns.map((c) => c.name),
    properties: Object.fromEntries([
      ...columns.map((c) => [c.name, columnSchema(model, relation, c, false)]),
      ...sortByKey(computed, (c) => [c.name]).map((c) => [c.name, computedFieldSchema(model, c)]),
    ]),
  };
}

function insertSchema(model: SchemaModel, relation: RelationModel): JsonSchema {
  const columns = byName(relation).filter((c) => !isComputed(c));
  return {
    type: 'object',
    description: `A new row of \`${relation.name}\`. Columns that are nullable or have a default may be left out; generated columns are not accepted.`,
    required: columns.filter((c) => !c.nullable && c.default === null && c.identity === null).map((c) => c.name),
    properties: Object.fromEntries(columns.map((c) => [c.name, columnSchema(model, relation, c, true)])),
    additionalProperties: false,
  };
}

function updateSchema(model: SchemaModel, relation: RelationModel): JsonSchema {
  const columns = byName(relation).filter((c) => !isComputed(c));
  return {
    type: 'object',
    description: `Changes to rows of \`${relation.name}\`: only the columns given are set.`,
    properties: Object.fromEntries(columns.map((c) => [c.name, columnSchema(model, relation, c, true)])),
    additionalProperties: false,
  };
}

/** Row/Insert/Update component schemas of the relations the API exposes. */
export function relationSchemas(model: SchemaModel, relation: RelationModel, keys: RelationKeys): [string, JsonSchema][] {
  const grants = relationGrants(model, relation);
  const schemas: [string, JsonSchema][] = [[keys.row, rowSchema(model, relation)]];
  if (rolesFor(grants, 'insert').length > 0) schemas.push([keys.insert, insertSchema(model, relation)]);
  if (rolesFor(grants, 'update').length > 0) schemas.push([keys.update, updateSchema(model, relation)]);
  return schemas;
}

function embedsSentence(relationships: readonly Relationship[]): string | null {
  if (relationships.length === 0) return null;
  const kinds: Readonly<Record<Relationship['kind'], string>> = {
    'many-to-one': 'to-one, an object',
    'one-to-one': 'to-one, an object',
    'one-to-many': 'to-many, an array',
    'many-to-many': 'to-many through a junction table, an array',
  };
  const items = sortByKey(relationships, (r) => [r.targetName, r.constraint]).map(
    (r) => `\`${r.targetName}\` (${kinds[r.kind]}; \`${r.targetName}!${r.constraint}\` when ambiguous)`,
  );
  return `Embeddable with \`select=*,<name>(*)\`: ${items.join(', ')}.`;
}

/** Filter parameters (one per column) as components, keyed `filter.<relation>.<column>`. */
export function filterParameters(relation: RelationModel, base: string): [string, JsonSchema][] {
  const names = new ComponentNames();
  return byName(relation).map((column) => [
    `filter.${base}.${names.key(column.name)}`,
    {
      name: column.name,
      in: 'query',
      required: false,
      description: `Filter on \`${column.name}\` (${column.type.sql}): \`<operator>.<value>\`, e.g. \`eq.<value>\`, \`in.(a,b)\`, \`is.null\`, \`not.eq.<value>\`.`,
      schema: { type: 'string' },
    },
  ]);
}

interface OperationParts {
  readonly context: EmitContext;
  readonly relation: RelationModel;
  readonly keys: RelationKeys;
  readonly filters: readonly string[];
  readonly tag: string;
  readonly operationBase: string;
}

function arrayOf(schema: JsonSchema): JsonSchema {
  return { type: 'array', items: schema };
}

function rowsContent(parts: OperationParts): JsonSchema {
  const row = schemaRef(parts.keys.row);
  return {
    'application/json': { schema: arrayOf(row) },
    'application/vnd.pgrst.object+json': { schema: row },
    'text/csv': { schema: { type: 'string' } },
  };
}

function operation(parts: OperationParts, roles: readonly ApiRole[], fields: Record<string, unknown>): JsonSchema {
  const lead = typeof fields.description === 'string' ? fields.description : '';
  return {
    tags: [parts.tag],
    ...fields,
    // The relation's policies are stated once, in its tag; repeating them here made one policy change touch every operation.
    description: [lead, rolesSentence(roles)].filter((p) => p !== '').join('\n\n'),
    'x-roles': [...roles],
  };
}

function readOperation(parts: OperationParts, roles: readonly ApiRole[]): JsonSchema {
  const { relation } = parts;
  const embeds = embedsSentence(parts.context.relationships.get(relationKey(relation.schema, relation.name)) ?? []);
  const content = { ...rowsContent(parts), ...mediaHandlerContent(relationMediaHandlers(parts.context.model, relation)) };
  return operation(parts, roles, {
    operationId: `${parts.operationBase}.select`,
    summary: `Read rows of ${relation.name}`,
    description: [
      relation.comment,
      'Rows as an array; `Accept: application/vnd.pgrst.object+json` for exactly one row as an object, `text/csv` for CSV. ' +
        'JSON columns filter by path: `?meta->>lang=eq.en`.',
      embeds,
    ]
      .filter((p) => p)
      .join('\n\n'),
    parameters: [
      ...['select', 'order', 'limit', 'offset', 'count', 'or', 'and', 'Range', 'Prefer.read'].map(parameterRef),
      ...parts.filters.map(parameterRef),
    ],
    responses: {
      '200': { description: 'All matching rows (within `limit`).', headers: { 'Content-Range': CONTENT_RANGE }, content },
      '206': { description: 'A partial range of the matching rows: the total is larger than the page.', headers: { 'Content-Range': CONTENT_RANGE }, content },
      ...errorRefs('read'),
    },
  });
}

function changedRows(parts: OperationParts, status: '200' | '201', description: string): Record<string, JsonSchema> {
  return {
    [status]: { description, headers: { 'Content-Range': CONTENT_RANGE }, content: rowsContent(parts) },
  };
}

function insertOperation(parts: OperationParts, roles: readonly ApiRole[]): JsonSchema {
  const insert = schemaRef(parts.keys.insert);
  return operation(parts, roles, {
    operationId: `${parts.operationBase}.insert`,
    summary: `Insert rows into ${parts.relation.name}`,
    description: 'One object or an array of objects. The inserted rows are returned (`return=representation` applies unless `Prefer` says otherwise).',
    parameters: ['select', 'columns', 'on_conflict', 'Prefer.write'].map(parameterRef),
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: { oneOf: [insert, arrayOf(insert)] } },
        'text/csv': { schema: { type: 'string', description: 'A header line of column names, then one line per row.' } },
      },
    },
    responses: {
      ...changedRows(parts, '201', 'Created: the inserted rows.'),
      '200': { description: 'Upsert (`resolution=merge-duplicates`) that only updated existing rows: those rows.', content: rowsContent(parts) },
      ...errorRefs('insert'),
    },
  });
}

function updateOperation(parts: OperationParts, roles: readonly ApiRole[], method: 'patch' | 'put'): JsonSchema {
  return operation(parts, roles, {
    operationId: `${parts.operationBase}.${method === 'patch' ? 'update' : 'replace'}`,
    summary: `Update rows of ${parts.relation.name}${method === 'put' ? ' (as PATCH)' : ''}`,
    description:
      (method === 'put' ? 'PUT is PATCH here. ' : '') +
      'The filters select the rows changed; the body sets the columns it names. The changed rows are returned.',
    parameters: [...['select', 'columns', 'order', 'limit', 'Prefer.write'].map(parameterRef), ...parts.filters.map(parameterRef)],
    requestBody: { required: true, content: { 'application/json': { schema: schemaRef(parts.keys.update) } } },
    responses: {
      ...changedRows(parts, '200', 'The updated rows (an empty array when no row matched).'),
      '204': { description: 'No content (`Prefer: return=minimal`).' },
      ...errorRefs('write'),
    },
  });
}

function deleteOperation(parts: OperationParts, roles: readonly ApiRole[]): JsonSchema {
  return operation(parts, roles, {
    operationId: `${parts.operationBase}.delete`,
    summary: `Delete rows of ${parts.relation.name}`,
    description: 'The filters select the rows deleted; **without a filter every row the caller may delete is deleted.** The deleted rows are returned.',
    parameters: [...['select', 'order', 'limit', 'Prefer.write'].map(parameterRef), ...parts.filters.map(parameterRef)],
    responses: {
      ...changedRows(parts, '200', 'The deleted rows.'),
      '204': { description: 'No content (`Prefer: return=minimal`).' },
      ...errorRefs('write'),
    },
  });
}

/**
 * The path item `/rest/v1/<relation>`: the methods some role's grants allow, each
 * naming its roles (the policies are in the relation's tag). Null when no role may do anything.
 */
export function relationPath(
  context: EmitContext,
  relation: RelationModel,
  keys: RelationKeys,
  filters: readonly string[],
  tag: string,
): JsonSchema | null {
  const grants = relationGrants(context.model, relation);
  const parts: OperationParts = { context, relation, keys, filters, tag, operationBase: keys.row };
  const item: Record<string, unknown> = {};
  const select = rolesFor(grants, 'select');
  const insert = rolesFor(grants, 'insert');
  const update = rolesFor(grants, 'update');
  const remove = rolesFor(grants, 'delete');
  if (select.length > 0) item.get = readOperation(parts, select);
  if (insert.length > 0) item.post = insertOperation(parts, insert);
  if (update.length > 0) {
    item.patch = updateOperation(parts, update, 'patch');
    item.put = updateOperation(parts, update, 'put');
  }
  if (remove.length > 0) item.delete = deleteOperation(parts, remove);
  if (Object.keys(item).length === 0) return null;
  const kind = relation.kind === 'table' ? 'Table' : relation.kind === 'view' ? 'View' : 'Materialized view';
  item.summary = `${kind} ${relation.name}`;
  item.description = [relation.comment, `${FILTER_SYNTAX}`].filter((p) => p).join('\n\n');
  return item;
}
