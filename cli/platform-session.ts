import { loadConfig } from '../runtime/config.js';
import type { ProjectRecord } from '../runtime/platform/platform.js';
import { Platform } from '../runtime/platform/platform.js';
import { CliError } from '../generator/command-error.js';

/** Opens the platform for one command and closes it however the command ends. */
export async function withPlatform<T>(work: (platform: Platform) => Promise<T>): Promise<T> {
  const platform = await Platform.open(loadConfig());
  try {
    return await work(platform);
  } finally {
    await platform.close();
  }
}

/** The registry's record of `ref`, or the CLI's `project_not_found`. */
export async function requireProject(platform: Platform, ref: string): Promise<ProjectRecord> {
  const record = await platform.getProject(ref);
  if (!record) throw new CliError('project_not_found', `project "${ref}" does not exist`);
  return record;
}
