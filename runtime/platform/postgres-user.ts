import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { ClusterError } from './cluster-error.js';

const execFileAsync = promisify(execFile);

/** Who the embedded cluster's programs run as: the `postgres` system user under root, else ourselves. */
export interface RunAs {
  readonly uid?: number;
  readonly gid?: number;
}

/** PostgreSQL refuses to run as root: find (or create) the `postgres` system user then. */
export async function unprivilegedUser(): Promise<RunAs> {
  if (process.getuid?.() !== 0) return {};
  const lookup = async (): Promise<RunAs | null> => {
    try {
      const uid = Number((await execFileAsync('id', ['-u', 'postgres'])).stdout.trim());
      const gid = Number((await execFileAsync('id', ['-g', 'postgres'])).stdout.trim());
      return { uid, gid };
    } catch {
      return null;
    }
  };
  const existing = await lookup();
  if (existing) return existing;
  await execFileAsync('groupadd', ['--system', 'postgres']).catch(() => undefined);
  await execFileAsync('useradd', ['--system', '-g', 'postgres', 'postgres']);
  const created = await lookup();
  if (!created) throw new ClusterError('could not create the postgres system user to run the embedded cluster');
  return created;
}

export type Access = 'execute' | 'write';

/**
 * Whether `runAs` can execute (or write into) `target`, every directory on the way
 * included. Asked of the kernel by a `test` run as that user: permission bits, ACLs
 * and mount options all count, which no stat-based guess gets right.
 */
export function canReach(runAs: RunAs, target: string, access: Access): Promise<boolean> {
  if (runAs.uid === undefined) return Promise.resolve(true);
  return new Promise((resolve) => {
    const child = spawn('test', [access === 'execute' ? '-x' : '-w', target], { ...runAs, cwd: '/', stdio: 'ignore' });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}
