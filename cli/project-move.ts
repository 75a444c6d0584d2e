import { assertValidRef } from '../runtime/platform/bootstrap.js';
import { confirmMove, moveProject } from '../generator/migrations/move.js';
import { type Output } from './output.js';
import { requireProject, withPlatform } from './platform-session.js';
import { CliError } from '../generator/command-error.js';

const USAGE = 'usage: gantry project move <ref> --to CLUSTER | gantry project move <ref> --confirm';

/** `gantry project move <ref> --to CLUSTER` and `--confirm` (drop the old database the move kept). */
export async function moveCommand(ref: string | undefined, options: { to?: string; confirm?: boolean }, out: Output): Promise<void> {
  if (!ref || (options.to === undefined) === (options.confirm !== true)) throw new CliError('usage', USAGE);
  assertValidRef(ref);
  await withPlatform(async (platform) => {
    const record = await requireProject(platform, ref);
    if (options.confirm) {
      const done = await confirmMove(platform, record);
      out.result(done, `dropped ${ref}'s old database on cluster ${done.dropped.cluster}`);
      return;
    }
    const { liveFingerprint } = await import('../generator/generate.js');
    const report = await moveProject(platform, record, options.to!, liveFingerprint);
    out.result(report, [
      `moved ${ref} from cluster ${report.from} to ${report.to}: ${report.copied.rows} row(s) of ${report.copied.tables} table(s), writes paused ${report.paused_ms} ms`,
      `the old database stays on cluster ${report.from}, read-only: gantry project move ${ref} --confirm drops it`,
    ].join('\n'));
  });
}
