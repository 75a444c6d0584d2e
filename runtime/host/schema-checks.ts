import fs from 'node:fs/promises';
import path from 'node:path';
import { REF_PATTERN } from '../platform/bootstrap.js';

/**
 * What a project's generated code was last found in line with. Kept under GANTRY_HOME, so a
 * restarted host loads a project whose schema did not change without introspecting it: the
 * same schema version of the same database (the version names the database: a project deleted
 * and created again under the same ref is another one), the same exposed schemas, and the code
 * on disk still the one checked (the fingerprint in its schema.json; code deleted or rewritten since no
 * longer matches).
 */
export interface SchemaCheck {
  /** The database's schema version, with its identity (readSchemaVersion). */
  readonly version: string;
  /** The schemas the code exposes (api.schemas). */
  readonly schemas: readonly string[];
  /** The fingerprint of the generated code found or written. */
  readonly fingerprint: string;
}

/** Whether a stored check still vouches for the code: same inputs, and the code on disk is the code checked. */
export function checkHolds(stored: SchemaCheck | null, live: Omit<SchemaCheck, 'fingerprint'>, fingerprintOnDisk: string | null): boolean {
  return (
    stored !== null &&
    stored.version === live.version &&
    stored.schemas.length === live.schemas.length &&
    stored.schemas.every((schema, i) => schema === live.schemas[i]) &&
    stored.fingerprint === fingerprintOnDisk
  );
}

/** The DDL counter of a schema version (readSchemaVersion), without the database's identity. */
function counterOf(version: string): string {
  return version.slice(version.lastIndexOf(':') + 1);
}

/**
 * After a move, whether the check of the database the project moved from vouches for the one it moved
 * to: it held there, and the schema versions' DDL counters agree. The move copies the counter, and
 * bumps it on the new database unless it found both schemas alike (same fingerprint) and no DDL since.
 */
export function checkCarriesOver(stored: SchemaCheck | null, live: Omit<SchemaCheck, 'fingerprint'>, fingerprintOnDisk: string | null): boolean {
  return stored !== null && checkHolds(stored, { ...live, version: stored.version }, fingerprintOnDisk) && counterOf(stored.version) === counterOf(live.version);
}

function isSchemaCheck(value: unknown): value is SchemaCheck {
  const v = value as Partial<Record<keyof SchemaCheck, unknown>> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.version === 'string' &&
    typeof v.fingerprint === 'string' &&
    Array.isArray(v.schemas) &&
    v.schemas.every((s) => typeof s === 'string')
  );
}

/**
 * One JSON file per project in `dir`. A file that is missing, unreadable or not a check counts
 * as no check (the project is introspected, as on a first start); writes replace a file whole
 * (written aside, then renamed), so a host killed mid-write leaves the old check or the new one.
 */
export class SchemaCheckStore {
  constructor(private readonly dir: string) {}

  async get(ref: string): Promise<SchemaCheck | null> {
    const text = await fs.readFile(this.file(ref), 'utf8').catch(() => null);
    if (text === null) return null;
    try {
      const parsed: unknown = JSON.parse(text);
      return isSchemaCheck(parsed) ? parsed : null;
    } catch {
      return null;
    }
  }

  async set(ref: string, check: SchemaCheck): Promise<void> {
    const file = this.file(ref);
    await fs.mkdir(this.dir, { recursive: true });
    const aside = `${file}.${process.pid}.tmp`;
    await fs.writeFile(aside, `${JSON.stringify(check, null, 2)}\n`);
    await fs.rename(aside, file);
  }

  async remove(ref: string): Promise<void> {
    await fs.rm(this.file(ref), { force: true });
  }

  private file(ref: string): string {
    // A ref is a file name here: never let one reach outside the folder.
    if (!REF_PATTERN.test(ref)) throw new RangeError(`not a project ref: ${JSON.stringify(ref)}`);
    return path.join(this.dir, `${ref}.json`);
  }
}
