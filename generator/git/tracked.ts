import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Whether git tracks any file under `dir` (in the repository that holds it). False outside a
 * repository, for a folder that does not exist, and where git is not installed: then nothing of
 * the team's history can be overwritten.
 */
export async function tracksFilesUnder(dir: string): Promise<boolean> {
  if (!fs.existsSync(dir)) return false;
  try {
    const { stdout } = await run('git', ['ls-files', '--', '.'], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
    return stdout.trim() !== '';
  } catch {
    return false;
  }
}
