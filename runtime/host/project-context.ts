import type pg from 'pg';
import type { GantryConfig } from '../config.js';

/** Per-project settings kept in the platform registry (`project config --set`). */
export interface ProjectSettings {
  readonly 'auth.autoconfirm': boolean;
  /** GoTrue's refresh-token reuse grace window, in seconds (0 = none). */
  readonly 'auth.refresh_reuse_interval': number;
}

/**
 * Everything a project's server needs at request time. The host builds one per
 * project and hands it to the project's (generated) server and to the auth router.
 */
export interface ProjectContext {
  readonly ref: string;
  readonly jwtSecret: string;
  readonly settings: ProjectSettings;
  /** Connects as `authenticator`; data API transactions switch role per request. */
  readonly apiPool: pg.Pool;
  /** Connects as the cluster superuser; only runtime/auth uses it, for the `auth` schema. */
  readonly adminPool: pg.Pool;
  readonly config: GantryConfig;
}
