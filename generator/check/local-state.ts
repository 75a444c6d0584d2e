import fs from 'node:fs/promises';
import type { GantryConfig } from '../../runtime/config.js';
import { taskClient } from '../../runtime/db/pool-errors.js';
import { Platform } from '../../runtime/platform/platform.js';
import { readHistory } from '../migrations/history.js';
import { listLocalMigrations } from '../migrations/local-files.js';
import { migrationStatus } from '../migrations/status.js';

/**
 * Where the developer's own database of a project stands against the branch's migrations, which decides what
 * fixes generated code that differs from them:
 * - `no_project`: no local project (a fresh clone, CI): the code is rebuilt from the migrations alone;
 * - `other_branch`: it recorded migrations the folder lacks, or with other checksums: only a reset rebuilds it;
 * - `pending`: it lacks some of the folder's migrations: `migrate` applies them and regenerates;
 * - `in_sync`: it ran exactly the folder's migrations: the generated files were edited (or it was changed by hand).
 */
export type LocalState = 'no_project' | 'other_branch' | 'pending' | 'in_sync';

/**
 * The local state of each of `refs`. Looks only where a local database can be: DATABASE_URL, or a GANTRY_HOME
 * that exists (a fresh clone has none, and nothing is started or created for it).
 */
export async function localStates(config: GantryConfig, refs: readonly string[]): Promise<Map<string, LocalState>> {
  const states = new Map<string, LocalState>(refs.map((ref) => [ref, 'no_project']));
  const home = await fs.stat(config.gantryHome).then(() => true, () => false);
  if (refs.length === 0 || (!config.databaseUrl && !home)) return states;
  const platform = await Platform.open(config);
  try {
    for (const ref of refs) {
      const record = await platform.getProject(ref);
      if (!record) continue;
      const client = taskClient(platform.projectUrl(record));
      await client.connect();
      const history = await readHistory(client).finally(() => client.end());
      const status = migrationStatus(await listLocalMigrations(config.migrationsDir, ref), history);
      states.set(
        ref,
        status.some((m) => m.state === 'modified' || m.state === 'missing-locally') ? 'other_branch' : status.some((m) => m.state === 'pending') ? 'pending' : 'in_sync',
      );
    }
    return states;
  } finally {
    await platform.close();
  }
}
