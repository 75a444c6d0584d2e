import type { ColumnMeta, TableMeta } from './metadata.js';

/**
 * A column as generated code states it: the keys at their defaults are left out, so that a column is one
 * reviewable line of `tables/<t>.ts` and a change to it reads as the change of that line.
 */
export type ColumnDeclaration = Pick<ColumnMeta, 'name' | 'pgType'> & Partial<Omit<ColumnMeta, 'name' | 'pgType'>>;

/** A table's metadata as generated code states it: its columns in their short form. */
export interface TableDeclaration extends Omit<TableMeta, 'columns'> {
  readonly columns: readonly ColumnDeclaration[];
}

/** What a column declaration leaves out, as PostgreSQL would make a column: nullable, no default, no comment. */
const columnDefaults = {
  elementType: null,
  enumValues: null,
  nullable: true,
  default: null,
  identity: null,
  generated: false,
  comment: null,
} as const satisfies Partial<ColumnMeta>;

type DefaultedKey = keyof typeof columnDefaults;

/** The full metadata of a declared column; `baseType` is its `pgType` unless stated (a domain states its base). */
export function columnFromDeclaration(declaration: ColumnDeclaration): ColumnMeta {
  return { ...columnDefaults, baseType: declaration.pgType, ...declaration };
}

/** The short form of a column: the inverse of `columnFromDeclaration`, what the generator prints. */
export function columnDeclaration(column: ColumnMeta): ColumnDeclaration {
  const declaration: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(column)) {
    if (key === 'baseType' && value === column.pgType) continue;
    if (key in columnDefaults && columnDefaults[key as DefaultedKey] === value) continue;
    declaration[key] = value;
  }
  return declaration as ColumnDeclaration;
}

/** The metadata a table module declares, its columns filled in: what the data API reads. */
export function defineTable(declaration: TableDeclaration): TableMeta {
  return { ...declaration, columns: declaration.columns.map(columnFromDeclaration) };
}
