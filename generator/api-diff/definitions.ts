import { quoteIdent } from '../../runtime/db/identifiers.js';
import { apiRoles } from '../introspect/catalog-queries.js';
import type { ApiRoleGrants, ColumnModel, FunctionArgModel, FunctionModel, PolicyModel, RoleGrants } from '../model/types.js';

/**
 * The SQL-like text a reviewer reads in the report for a column, a policy, a grant or a
 * function signature. Display only: nothing here is ever executed.
 */

/** An identifier as `quote_ident` shows it: bare when it is a plain lower-case name. */
export function displayIdent(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : quoteIdent(name);
}

export function displayName(schema: string, name: string): string {
  return `${displayIdent(schema)}.${displayIdent(name)}`;
}

/** What a column is given when an insert omits it: its default, identity or generation; null for none. */
export function columnDefault(column: ColumnModel): string | null {
  if (column.generated !== null) return `GENERATED ALWAYS AS (${column.generated}) STORED`;
  if (column.identity !== null) return `GENERATED ${column.identity.toUpperCase()} AS IDENTITY`;
  return column.default === null ? null : `DEFAULT ${column.default}`;
}

/** Whether a write that sets the column is refused (generated columns, identity ALWAYS). */
export function columnRefusesWrites(column: ColumnModel): boolean {
  return column.generated !== null || column.identity === 'always';
}

/** `title text NOT NULL DEFAULT ''`. */
export function columnDefinition(column: ColumnModel): string {
  const parts = [displayIdent(column.name), column.type.sql];
  if (!column.nullable) parts.push('NOT NULL');
  const fallback = columnDefault(column);
  if (fallback !== null) parts.push(fallback);
  return parts.join(' ');
}

/** The policy as the `CREATE POLICY` statement that would make it. */
export function policyDefinition(schema: string, table: string, policy: PolicyModel): string {
  const lines = [
    `CREATE POLICY ${displayIdent(policy.name)} ON ${displayName(schema, table)}`,
    `  AS ${policy.permissive ? 'PERMISSIVE' : 'RESTRICTIVE'} FOR ${policy.command}`,
    `  TO ${policy.roles.map(displayIdent).join(', ')}`,
  ];
  if (policy.using !== null) lines.push(`  USING (${policy.using})`);
  if (policy.withCheck !== null) lines.push(`  WITH CHECK (${policy.withCheck})`);
  return lines.join('\n');
}

export const privileges = ['select', 'insert', 'update', 'delete'] as const satisfies readonly (keyof RoleGrants)[];

/** `anon: select, insert` per role, or `anon: none`. */
export function grantsDefinition(grants: ApiRoleGrants): string {
  return apiRoles
    .map((role) => [role, grants[role]] as const)
    .map(([role, granted]) => `${role}: ${privileges.filter((p) => granted[p]).join(', ') || 'none'}`)
    .join('\n');
}

/** Parameters PostgREST passes by name: IN, INOUT and VARIADIC arguments. */
export function functionParameters(fn: FunctionModel): readonly FunctionArgModel[] {
  return fn.args.filter((arg) => arg.mode === 'in' || arg.mode === 'inout' || arg.mode === 'variadic');
}

/** Columns of the result: OUT, INOUT and TABLE arguments. */
export function functionResultColumns(fn: FunctionModel): readonly FunctionArgModel[] {
  return fn.args.filter((arg) => arg.mode === 'out' || arg.mode === 'inout' || arg.mode === 'table');
}

export function parameterDefinition(arg: FunctionArgModel): string {
  const mode = arg.mode === 'in' ? '' : `${arg.mode.toUpperCase()} `;
  return `${mode}${arg.name === '' ? '' : `${displayIdent(arg.name)} `}${arg.type.sql}${arg.hasDefault ? ' DEFAULT …' : ''}`;
}

/** `returns SETOF record (id bigint, title text)` / `returns integer`. */
export function returnDefinition(fn: FunctionModel): string {
  const columns = functionResultColumns(fn);
  const shape = columns.length === 0 ? '' : ` (${columns.map((c) => `${displayIdent(c.name)} ${c.type.sql}`).join(', ')})`;
  return `${fn.returnsSet ? 'SETOF ' : ''}${fn.returnType.sql}${shape}`;
}

/** `public.add_numbers(a integer, b integer DEFAULT …) RETURNS integer IMMUTABLE`. */
export function functionDefinition(fn: FunctionModel): string {
  const params = functionParameters(fn).map(parameterDefinition).join(', ');
  const security = fn.securityDefiner ? ' SECURITY DEFINER' : '';
  return `${displayName(fn.schema, fn.name)}(${params}) RETURNS ${returnDefinition(fn)} ${fn.volatility.toUpperCase()}${security}`;
}
