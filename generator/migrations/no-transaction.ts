import path from 'node:path';
import { splitStatements } from '../../runtime/platform/sql-statements.js';
import { MigrationError } from './errors.js';

/**
 * The first line that makes a migration file run outside a transaction, for what PostgreSQL refuses inside one
 * (`CREATE INDEX CONCURRENTLY`, `ALTER TYPE … ADD VALUE` before PostgreSQL 12, `VACUUM`). Such a file holds one
 * statement: with no transaction around it, a second statement failing would leave the first applied and the file
 * neither applied nor not.
 */
export const NO_TRANSACTION_MARKER = '-- gantry:no-transaction';

/** Whether the file's first line is the marker. */
export function runsOutsideTransaction(sql: string): boolean {
  return sql.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0]!.trim() === NO_TRANSACTION_MARKER;
}

/** The statements of a script that hold more than comments. */
function statementCount(sql: string): number {
  return splitStatements(sql).filter((s) => s.sql.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '').trim() !== '').length;
}

/** Throws unless a marked file holds exactly one statement. */
export function assertOneStatement(file: string, sql: string): void {
  const count = statementCount(sql);
  if (count === 1) return;
  throw new MigrationError(
    'no_transaction_statements',
    `${file}: a file marked ${NO_TRANSACTION_MARKER} runs without a transaction and must hold exactly one statement, not ${count}; put the others in a migration of their own`,
  );
}

/** The marked files among `files` checked, before any of them runs. */
export function assertMarkedFiles(files: readonly { readonly path: string; readonly sql: string }[], display: (file: string) => string = path.basename): void {
  for (const file of files) if (runsOutsideTransaction(file.sql)) assertOneStatement(display(file.path), file.sql);
}
