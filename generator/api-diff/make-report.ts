import { apiReport, type ApiReport } from './api-report.js';
import { diffApi, type ApiDescription } from './diff-api.js';
import { lintMigrations, type MigrationFile } from './migration-lint.js';

export interface ReportInput {
  readonly ref: string;
  /** Labels for the two sides: `HEAD`, `working tree`, `before migrate`… */
  readonly baseLabel: string;
  readonly headLabel: string;
  readonly base: ApiDescription;
  readonly head: ApiDescription;
  /** The migration files that made the change: new since the base, or just applied. */
  readonly migrationFiles: readonly MigrationFile[];
}

/** The API changes from base to head, with squawk's findings on the migration files behind them. */
export async function makeApiReport(input: ReportInput): Promise<ApiReport> {
  const findings = await lintMigrations(input.migrationFiles);
  return apiReport(input.ref, input.baseLabel, input.headLabel, diffApi(input.base, input.head), { files: input.migrationFiles.map((file) => file.name), findings });
}
