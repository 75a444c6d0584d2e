import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * The Node versions Gantry supports (`engines.node` of package.json) are ones every installed package supports
 * too, so `npm ci` on a supported Node warns about no package's engines; and the Node running the suite (CI's) is
 * one of them.
 */

const root = path.resolve(import.meta.dirname, '../..');
const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'));

const supported = (readJson('package.json') as { engines: { node: string } }).engines.node;
const lock = readJson('package-lock.json') as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> };

describe('supported Node versions', () => {
  it('every installed package allows every supported version', () => {
    const narrower = Object.entries(lock.packages)
      // Optional packages for other platforms are in the lock but not installed: npm checks what it installs.
      .filter(([where]) => where !== '' && fs.existsSync(path.join(root, where)))
      .flatMap(([where, entry]) => {
        const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return range === undefined || semver.subset(supported, range) ? [] : [`${where}@${entry.version}: node ${range}`];
      });
    expect(narrower).toEqual([]);
  });

  it('the Node running the suite is a supported one', () => {
    expect(semver.satisfies(process.version, supported), `${process.version} against ${supported}`).toBe(true);
  });
});
