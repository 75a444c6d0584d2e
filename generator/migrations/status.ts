import type { AppliedMigration } from './history.js';
import type { LocalMigration } from './local-files.js';

/**
 * applied: recorded with the file's checksum (or recorded by the Supabase CLI, without one);
 * pending: a file not recorded; modified: recorded with another checksum than the file has now;
 * missing-locally: recorded, but no file of that version.
 */
export type MigrationState = 'applied' | 'pending' | 'modified' | 'missing-locally';

export interface MigrationStatus {
  readonly version: string;
  readonly name: string | null;
  readonly state: MigrationState;
  readonly appliedAt: Date | null;
  readonly localChecksum: string | null;
  readonly appliedChecksum: string | null;
}

/** Local files and history rows side by side, in version order. */
export function migrationStatus(local: readonly LocalMigration[], history: readonly AppliedMigration[]): MigrationStatus[] {
  const files = new Map(local.map((m) => [m.version, m]));
  const rows = new Map(history.map((h) => [h.version, h]));
  const versions = [...new Set([...files.keys(), ...rows.keys()])].sort();
  return versions.map((version) => {
    const file = files.get(version);
    const row = rows.get(version);
    const state: MigrationState = !row ? 'pending' : !file ? 'missing-locally' : row.checksum === null || row.checksum === file.checksum ? 'applied' : 'modified';
    return {
      version,
      name: file?.name ?? row?.name ?? null,
      state,
      appliedAt: row?.appliedAt ?? null,
      localChecksum: file?.checksum ?? null,
      appliedChecksum: row?.checksum ?? null,
    };
  });
}
