import { CodedError } from '../../runtime/coded-error.js';

export type MigrationErrorCode =
  | 'invalid_migration_name'
  | 'duplicate_migration_version'
  | 'migration_exists'
  | 'migration_modified'
  | 'history_diverged'
  | 'database_is_production'
  | 'no_transaction_statements'
  | 'migration_not_found'
  | 'extensions_broken'
  | 'database_not_empty';

/** A refusal of a migration command, reported to the user with its code (exit 1). */
export class MigrationError extends CodedError {
  constructor(
    readonly code: MigrationErrorCode,
    message: string,
  ) {
    super(message);
  }
}
