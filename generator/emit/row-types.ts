import { sortByKey } from '../model/sort.js';
import type { ColumnModel, RelationModel } from '../model/types.js';
import { docComment } from './code.js';
import { propertyKey } from './names.js';
import { nullable, tsType, type TypeContext } from './ts-types.js';

/** One property of a Row/Insert/Update object type. */
export interface Field {
  readonly name: string;
  readonly type: string;
  readonly optional: boolean;
  /** The column's comment, printed as JSDoc above the property. */
  readonly comment?: string | null;
}

const columnsByName = (relation: RelationModel): ColumnModel[] => sortByKey(relation.columns, (c) => [c.name]);

/** Generated columns and `GENERATED ALWAYS` identities are computed by PostgreSQL and refuse values. */
function isComputed(column: ColumnModel): boolean {
  return column.identity === 'always' || column.generated !== null;
}

export function rowFields(relation: RelationModel, context: TypeContext, withComments = false): Field[] {
  return columnsByName(relation).map((c) => ({
    name: c.name,
    type: nullable(tsType(c.type, context), c.nullable),
    optional: false,
    comment: withComments ? c.comment : null,
  }));
}

export function insertFields(relation: RelationModel, context: TypeContext): Field[] {
  return columnsByName(relation).map((c) =>
    isComputed(c)
      ? { name: c.name, type: 'never', optional: true }
      : {
          name: c.name,
          type: nullable(tsType(c.type, context), c.nullable),
          optional: c.nullable || c.identity !== null || c.default !== null,
        },
  );
}

export function updateFields(relation: RelationModel, context: TypeContext): Field[] {
  return columnsByName(relation).map((c) => ({
    name: c.name,
    type: isComputed(c) ? 'never' : nullable(tsType(c.type, context), c.nullable),
    optional: true,
  }));
}

/** Whether a relation takes inserts/updates at all, which decides if Insert/Update types exist. */
export function isWritable(relation: RelationModel): boolean {
  return relation.kind === 'table' || relation.updatable.insert || relation.updatable.update;
}

/** `{ a: T; ... }` laid out over lines at `indent`; `{}` style for no fields. */
export function objectType(fields: readonly Field[], indent: string): string {
  if (fields.length === 0) return '{\n' + `${indent}  [_ in never]: never;\n` + `${indent}}`;
  const inner = `${indent}  `;
  const member = (f: Field): string => `${docComment(f.comment ?? null, inner)}${inner}${propertyKey(f.name)}${f.optional ? '?' : ''}: ${f.type};\n`;
  return `{\n${fields.map(member).join('')}${indent}}`;
}
