import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { Platform, ProjectRecord } from './platform.js';
import { newSecret, PROJECTS_CHANNEL } from './platform.js';
import { splitStatements } from './sql-statements.js';
import { projectMigrationVersions, recordProjectMigrations } from './migrations.js';
import { ensureTemplate, templateName } from './project-template.js';
import { taskClient } from '../db/pool-errors.js';
import { generateSigningKey } from './signing-keys.js';
import type { AccessTokenAlg } from '../tokens/keyring.js';
import { CodedError } from '../coded-error.js';
import { ClusterError } from './cluster-error.js';
import { UnknownClusterError } from './cluster-config.js';

export const REF_PATTERN = /^[a-z][a-z0-9_]{2,39}$/;

export type ProjectErrorCode = 'invalid_ref' | 'project_exists' | 'project_not_found' | 'schema_unreadable' | 'schema_failed';

export class ProjectError extends CodedError {
  constructor(
    readonly code: ProjectErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface SchemaFile {
  /** As the user named it: shown in errors. */
  readonly name: string;
  readonly sql: string;
  /**
   * Runs on its own, outside any transaction (a migration marked `-- gantry:no-transaction`, holding one statement
   * PostgreSQL refuses inside one, such as CREATE INDEX CONCURRENTLY): what ran before it commits first.
   */
  readonly outsideTransaction?: boolean;
}

const sqlDir = path.join(import.meta.dirname, 'sql');
const bootstrapFiles = ['project-auth.sql', 'project-grants.sql', 'project-events.sql'];

export function databaseNameFor(ref: string): string {
  return `project_${ref}`;
}

export function assertValidRef(ref: string): void {
  if (!REF_PATTERN.test(ref)) {
    throw new ProjectError('invalid_ref', `invalid project ref "${ref}": it must match ${REF_PATTERN.source}`);
  }
}

export async function readSchemaFiles(paths: readonly string[]): Promise<SchemaFile[]> {
  return Promise.all(
    paths.map(async (file) => {
      try {
        return { name: file, sql: await fs.readFile(file, 'utf8') };
      } catch (error) {
        throw new ProjectError('schema_unreadable', `cannot read schema file ${file}: ${(error as Error).message}`);
      }
    }),
  );
}

/** 1-based line of a character position (PostgreSQL reports 1-based positions). */
function lineOf(sql: string, position: number): number {
  return sql.slice(0, Math.max(0, position - 1)).split('\n').length;
}

interface PgErrorFields {
  readonly message: string;
  readonly code?: string;
  readonly position?: string;
}

function schemaError(file: SchemaFile, line: number | null, error: PgErrorFields): ProjectError {
  const where = line === null ? file.name : `${file.name}:${line}`;
  return new ProjectError('schema_failed', `${where}: ${error.message}${error.code ? ` (SQLSTATE ${error.code})` : ''}`);
}

/**
 * Runs SQL files in order inside the caller's transaction; a failure names the file
 * and line. PostgreSQL gives a position only for parse errors, so for an error at
 * execution the file is replayed statement by statement to find the failing one.
 */
export async function runSchemaFiles(client: pg.ClientBase, files: readonly SchemaFile[]): Promise<void> {
  for (const file of files) {
    await client.query('SAVEPOINT gantry_schema_file');
    try {
      await client.query(file.sql);
    } catch (error) {
      const pgError = error as PgErrorFields;
      if (pgError.position) throw schemaError(file, lineOf(file.sql, Number(pgError.position)), pgError);
      await client.query('ROLLBACK TO SAVEPOINT gantry_schema_file');
      for (const statement of splitStatements(file.sql)) {
        try {
          await client.query(statement.sql);
        } catch (statementError) {
          const fields = statementError as PgErrorFields;
          const offset = fields.position ? lineOf(statement.sql, Number(fields.position)) - 1 : 0;
          throw schemaError(file, statement.line + offset, fields);
        }
      }
      throw schemaError(file, null, pgError);
    }
    await client.query('RELEASE SAVEPOINT gantry_schema_file');
  }
}

/** Runs one file with no transaction around it (SchemaFile.outsideTransaction); a failure names the file and line. */
export async function runOutsideTransaction(client: pg.ClientBase, file: SchemaFile): Promise<void> {
  try {
    await client.query(file.sql);
  } catch (error) {
    const pgError = error as PgErrorFields;
    throw schemaError(file, pgError.position ? lineOf(file.sql, Number(pgError.position)) : null, pgError);
  }
}

export interface CreateProjectOptions {
  readonly ref: string;
  readonly schemaFiles: readonly SchemaFile[];
  readonly autoconfirm?: boolean;
  /** What its access tokens are signed with; default HS256 with its jwt_secret, as the service document says. */
  readonly signingAlg?: AccessTokenAlg;
  /** Runs last in the transaction that runs the schema files: the generator records them as the project's first migrations. */
  readonly finish?: (client: pg.ClientBase) => Promise<void>;
  /** The cluster its database is created on; default: placeProject's choice. */
  readonly cluster?: string;
}

/**
 * Creates the project database as a clone of its cluster's bootstrap template (auth schema, grants,
 * event triggers), runs the user's SQL files in one transaction, then registers the project. Any
 * failure leaves neither the database nor the registry row behind.
 */
export async function createProject(platform: Platform, options: CreateProjectOptions): Promise<ProjectRecord> {
  const { ref } = options;
  assertValidRef(ref);
  if (await platform.getProject(ref)) throw new ProjectError('project_exists', `project "${ref}" already exists`);

  const databaseName = databaseNameFor(ref);
  const cluster = options.cluster ?? (await placeProject(platform));
  // The API roles the bootstrap grants to exist on that cluster first.
  await platform.apiLoginOn(cluster);
  const target = { cluster, databaseName };
  const admin = taskClient(platform.clusterNamed(cluster).urlFor('postgres'));
  await admin.connect();
  try {
    const template = await bootstrapTemplate(platform, cluster, admin);
    try {
      await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(databaseName)} TEMPLATE ${admin.escapeIdentifier(template)}`);
    } catch (error) {
      // A concurrent CREATE DATABASE of the same name surfaces as a unique violation on pg_database, not 42P04.
      const code = (error as { code?: string }).code;
      if (code === '42P04' || code === '23505') throw new ProjectError('project_exists', `database "${databaseName}" already exists`);
      throw error;
    }
    try {
      await applySchemaFiles(platform, target, options.schemaFiles, options.finish);
      const signingAlg = options.signingAlg ?? 'HS256';
      const settings = { 'auth.autoconfirm': options.autoconfirm ?? platform.config.authAutoconfirm, 'auth.signing_alg': signingAlg };
      const register = `INSERT INTO projects (ref, database_name, jwt_secret, settings, cluster) VALUES ($1, $2, $3, $4, $5) RETURNING ref`;
      const params = [ref, databaseName, newSecret(), JSON.stringify(settings), cluster];
      if (signingAlg === 'HS256') {
        await platform.pool.query(register, params);
      } else {
        // An asymmetric project has its key from the start, registered in the same statement as the project.
        const key = await generateSigningKey(signingAlg);
        await platform.pool.query(
          `WITH project AS (${register})
           INSERT INTO project_signing_keys (ref, kid, alg, private_jwk, public_jwk, status) SELECT ref, $6, $7, $8, $9, 'current' FROM project`,
          [...params, key.kid, key.alg, JSON.stringify(key.privateJwk), JSON.stringify(key.publicJwk)],
        );
      }
    } catch (error) {
      await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(databaseName)} WITH (FORCE)`);
      if ((error as { code?: string }).code === '23505') throw new ProjectError('project_exists', `project "${ref}" already exists`);
      throw error;
    }
  } finally {
    await admin.end();
  }
  const record = await platform.getProject(ref);
  if (!record) throw new ProjectError('project_not_found', `project "${ref}" vanished while being created`);
  return record;
}

/** Where a project database is: its cluster's name and the database's. */
export type DatabaseLocation = Pick<ProjectRecord, 'cluster' | 'databaseName'>;

/**
 * The cluster a new project goes on when `--cluster` names none: the one holding the fewest
 * projects (ties: the main cluster, then the declared order). Deterministic and cheap (one count
 * from the registry), it spreads projects evenly, which is what bounds each cluster's disk and
 * connections; a projects' recent load would place a burst of creations all on one cluster
 * and changes with the time of day, so moving a busy project (`project move`) is the answer to load.
 */
export async function placeProject(platform: Platform): Promise<string> {
  const names = platform.clusterNames();
  if (names.length === 1) return names[0]!;
  const { rows } = await platform.pool.query<{ cluster: string; n: number }>('SELECT cluster, count(*)::int AS n FROM projects GROUP BY cluster');
  const counts = new Map(rows.map((row) => [row.cluster, row.n]));
  return names.reduce((best, name) => ((counts.get(name) ?? 0) < (counts.get(best) ?? 0) ? name : best));
}

/** What the bootstrap runs and the name of the template holding it, read once per process: they are the package's own files. */
let bootstrapRead: Promise<{ readonly files: SchemaFile[]; readonly template: string }> | null = null;

function bootstrapSql(): Promise<{ readonly files: SchemaFile[]; readonly template: string }> {
  bootstrapRead ??= (async () => {
    const files = await Promise.all(bootstrapFiles.map(async (name) => ({ name, sql: await fs.readFile(path.join(sqlDir, name), 'utf8') })));
    return { files, template: templateName(JSON.stringify([files, await projectMigrationVersions()])) };
  })().catch((error: unknown) => {
    bootstrapRead = null;
    throw error;
  });
  return bootstrapRead;
}

/**
 * The cluster's template holding the bootstrap as this Gantry has it (auth schema, grants, event
 * triggers, the project migrations recorded as applied), made on first use: cloning it costs a file
 * copy where running the bootstrap costs some 300 statements, about a third of a project's creation.
 */
async function bootstrapTemplate(platform: Platform, cluster: string, admin: pg.ClientBase): Promise<string> {
  const { files, template } = await bootstrapSql();
  await ensureTemplate(admin, template, (databaseName) => applySchemaFiles(platform, { cluster, databaseName }, files, recordProjectMigrations));
  return template;
}

/** A new, empty project database bootstrapped (auth schema, grants, event triggers) and given the schema files, in one transaction. */
export async function initialiseDatabase(
  platform: Platform,
  target: DatabaseLocation,
  schemaFiles: readonly SchemaFile[],
  finish?: (client: pg.ClientBase) => Promise<void>,
): Promise<void> {
  await applySchemaFiles(platform, target, [...(await bootstrapSql()).files, ...schemaFiles], async (client) => {
    await recordProjectMigrations(client);
    await finish?.(client);
  });
}

/**
 * Drops a project's database (closing its connections) and creates it again, bootstrapped and
 * with the given schema files, in one transaction; the registry row, and so the project's keys
 * and settings, stay as they are. A host serving the project sees another database (its schema
 * version names the database's OID) once told through the registry channel.
 */
export async function recreateDatabase(
  platform: Platform,
  record: ProjectRecord,
  schemaFiles: readonly SchemaFile[],
  finish?: (client: pg.ClientBase) => Promise<void>,
): Promise<void> {
  const admin = taskClient(platform.clusterOf(record).urlFor('postgres'));
  await admin.connect();
  try {
    const name = admin.escapeIdentifier(record.databaseName);
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  await initialiseDatabase(platform, record, schemaFiles, finish);
  await platform.pool.query('SELECT pg_notify($1, $2)', [PROJECTS_CHANNEL, record.ref]);
}

/**
 * Runs SQL files on a project database in one transaction: all of them, or nothing; `finish`
 * runs last in the same transaction. A file that runs outside a transaction splits it: what ran
 * before it is committed, the file runs alone, a new transaction takes the rest.
 */
export async function applySchemaFiles(
  platform: Platform,
  target: DatabaseLocation,
  files: readonly SchemaFile[],
  finish?: (client: pg.ClientBase) => Promise<void>,
): Promise<void> {
  const client = taskClient(platform.projectUrl(target));
  await client.connect();
  try {
    await client.query('BEGIN');
    for (const file of files) {
      if (!file.outsideTransaction) {
        await runSchemaFiles(client, [file]);
        continue;
      }
      await client.query('COMMIT');
      await runOutsideTransaction(client, file);
      await client.query('BEGIN');
    }
    await finish?.(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/**
 * Drops the project database (closing its connections), an old one a move kept or a move's unfinished
 * copy, and its registry row. Every cluster those are on is resolved and connected to first, so a
 * cluster the configuration no longer declares (`unknown_cluster`) or that cannot be reached
 * (`cluster_unavailable`) refuses the delete with nothing changed; the row's removal commits only
 * after every drop (the project's own database last), so a drop that fails leaves it registered.
 */
export async function deleteProject(platform: Platform, ref: string): Promise<void> {
  const record = await platform.getProject(ref);
  if (!record) throw new ProjectError('project_not_found', `project "${ref}" does not exist`);
  const names = [...new Set([record.movedFrom, record.movingTo, record.cluster])].filter((name): name is string => name !== null);
  const clusters = names.map((name) => {
    if (platform.clusterNames().includes(name)) return platform.clusterNamed(name);
    const what = name === record.cluster ? 'its database' : `a copy of its database (${record.databaseName})`;
    throw new UnknownClusterError(name, platform.clusterNames(), `project "${ref}" keeps ${what} there: declare the cluster again to delete the project; nothing was changed`);
  });
  const admins = clusters.map((cluster) => taskClient(cluster.urlFor('postgres')));
  const registry = await platform.pool.connect();
  try {
    await Promise.all(admins.map(async (admin, i) => {
      try {
        await admin.connect();
      } catch (error) {
        throw new ClusterError(`cannot reach cluster "${names[i]}" to drop ${record.databaseName} (${(error as Error).message}): project "${ref}" was not deleted`);
      }
    }));
    await registry.query('BEGIN');
    await registry.query('DELETE FROM projects WHERE ref = $1', [ref]);
    for (const admin of admins) await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(record.databaseName)} WITH (FORCE)`);
    await registry.query('COMMIT');
  } catch (error) {
    await registry.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    registry.release();
    await Promise.all(admins.map((admin) => admin.end().catch(() => undefined)));
  }
}

/** Drops a database of a cluster, closing its connections; none by that name is no error. */
export async function dropDatabase(platform: Platform, target: DatabaseLocation): Promise<void> {
  const admin = taskClient(platform.clusterNamed(target.cluster).urlFor('postgres'));
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(target.databaseName)} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
