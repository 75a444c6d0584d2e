import { codeSync } from '../../generator/generate.js';
import type { CodeSync } from '../../runtime/host/project-directory.js';
import type { Platform } from '../../runtime/platform/platform.js';

/** The generator's code sync for a test host, pushing the ref of each project it introspects onto `introspected`. */
export function countingCodeSync(introspected: string[]): (platform: Platform) => CodeSync {
  return (platform) => {
    const real = codeSync(platform);
    return {
      onDisk: real.onDisk,
      sync: (record, client) => {
        introspected.push(record.ref);
        return real.sync(record, client);
      },
    };
  };
}
