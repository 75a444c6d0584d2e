import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { freePort } from '../../runtime/platform/ports.js';
import { docsExample } from '../helpers/docs-examples.js';
import { repoRoot, runProcess, type CliResult } from '../helpers/platform.js';
import { uniqueRef } from '../helpers/blackbox-projects.js';

/**
 * Gantry as a team adopts it, the loop of its own repository: the `npm pack` tarball installed in a fresh
 * application repository, `init`, `migration new`, `migrate`, a hooked table whose extension typechecks from that
 * repository, the gate passing and then catching an edited generated file, a teammate's fresh clone passing it,
 * a release built by the container file of docs/deploying.md — its steps run as commands in a fresh folder, since
 * the build machine has no container runtime — that migrates and serves the hooked table over HTTP, a typed
 * supabase-js client compiled against the team's generated types reading it, and the systemd unit of the same
 * page verified against the release. Every step is a separate process, as the team runs it.
 */

// npm installs a few hundred packages twice and the CLI starts several times: minutes on a loaded machine.
vi.setConfig({ testTimeout: 600_000, hookTimeout: 120_000 });

/** The test runner's environment without what would steer the commands: they see what a team's shell has. */
const baseEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^(GANTRY_|DATABASE_|npm_|NODE_OPTIONS$|PORT$|CALLS_PORT$|HOST$|VITEST)/.test(key)),
) as Record<string, string>;

function run(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<CliResult> {
  return runProcess(command, args, cwd, { ...baseEnv, ...env });
}

async function ok(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<CliResult> {
  const result = await run(command, args, cwd, env);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  return result;
}

/**
 * `npm install` from npm's cache alone. A cache filled by `npm ci` holds the tarballs but not the registry's
 * package documents a fresh resolution reads, so the first run on such a cache may ask the registry for those
 * (`--prefer-offline`: tarballs still come from the cache); the production install below runs with no network.
 */
async function npmInstall(cwd: string, args: readonly string[]): Promise<void> {
  const offline = await run('npm', ['install', '--offline', '--no-audit', '--no-fund', ...args], cwd);
  if (offline.code === 0) return;
  if (!offline.stderr.includes('ENOTCACHED')) throw new Error(`npm install exited ${offline.code}\n${offline.stderr}`);
  await ok('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...args], cwd);
}

const readJson = async (file: string): Promise<Record<string, unknown>> => JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
const exists = (file: string): Promise<boolean> => fs.stat(file).then(() => true, () => false);

/** The unprivileged user the container's `USER node` stands for on this machine. */
const UNPRIVILEGED = { name: 'nobody', group: 'nogroup', uid: '65534', gid: '65534' };

function asUnprivileged(command: readonly string[]): [string, string[]] {
  return ['setpriv', [`--reuid=${UNPRIVILEGED.uid}`, `--regid=${UNPRIVILEGED.gid}`, '--clear-groups', ...command]];
}

/** A container image built by running a Dockerfile's steps as commands; its stages are folders under `root`. */
interface BuiltImage {
  readonly workdir: string;
  readonly env: Record<string, string>;
  readonly user: string | null;
  readonly cmd: readonly string[];
  readonly healthcheck: readonly string[];
}

/**
 * Runs a Dockerfile's instructions (those the release's file uses) with `context` as the build context: each
 * stage a folder under `root` standing for `/`, `COPY` a copy, `RUN` bash in the stage's working folder as root
 * with npm told to stay offline and, where `unshare` can, in a network namespace with no network at all.
 * `registry` (files) is put at each stage's `/`: the tarball the lock file's `file:../` names stands in for the
 * registry a published gantry comes from.
 */
async function buildImage(dockerfile: string, context: string, root: string, registry: readonly string[]): Promise<BuiltImage> {
  const stages = new Map<string, string>();
  let stage = '';
  let workdir = '';
  let env: Record<string, string> = {};
  let user: string | null = null;
  let cmd: string[] = [];
  let healthcheck: string[] = [];
  const inStage = (dir: string, containerPath: string): string => path.join(dir, containerPath);
  const mapValue = (value: string): string => (value.startsWith('/') ? inStage(stage, value) : value);
  await fs.mkdir(root, { recursive: true });
  const isolated = (await run('unshare', ['-n', 'true'], root)).code === 0;
  for (const line of dockerfile.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'))) {
    const [, instruction, rest] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    const words = (rest ?? '').split(/\s+/);
    switch (instruction) {
      case 'FROM':
        stage = path.join(root, words[2] ?? 'final');
        await fs.mkdir(stage, { recursive: true });
        for (const file of registry) await fs.copyFile(file, path.join(stage, path.basename(file)));
        if (words[2]) stages.set(words[2], stage);
        env = {};
        user = null;
        break;
      case 'WORKDIR':
        workdir = inStage(stage, words[0]!);
        await fs.mkdir(workdir, { recursive: true });
        break;
      case 'ENV':
        for (const pair of words) {
          const [key, value] = pair.split('=') as [string, string];
          env[key] = mapValue(value);
        }
        break;
      case 'COPY': {
        const from = words[0]!.startsWith('--from=') ? stages.get(words.shift()!.slice('--from='.length))! : null;
        const dest = words.pop()!;
        for (const source of words) {
          const src = from ? inStage(from, source) : path.join(context, source);
          const target = dest.endsWith('/') ? path.join(workdir, dest, path.basename(source)) : path.resolve(workdir, dest);
          await fs.cp(src, target, { recursive: true, verbatimSymlinks: true });
        }
        break;
      }
      case 'RUN': {
        const script = rest!.replaceAll('node:node', `${UNPRIVILEGED.name}:${UNPRIVILEGED.group}`);
        const [command, args] = isolated ? ['unshare', ['-n', 'bash', '-c', script]] : ['bash', ['-c', script]];
        await ok(command, args as string[], workdir, { ...env, npm_config_offline: 'true' });
        break;
      }
      case 'USER':
        expect(words[0]).toBe('node');
        user = UNPRIVILEGED.name;
        break;
      case 'EXPOSE':
        break;
      case 'HEALTHCHECK':
        healthcheck = JSON.parse(rest!.slice(rest!.indexOf('CMD ') + 'CMD '.length)) as string[];
        break;
      case 'CMD':
        cmd = JSON.parse(rest!) as string[];
        break;
      default:
        throw new Error(`the test does not run the Dockerfile instruction ${instruction}`);
    }
  }
  return { workdir, env, user, cmd, healthcheck };
}

async function waitForHealth(url: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await fetch(url).then((r) => r.status, () => 0)) !== 200) {
    if (Date.now() > deadline) throw new Error(`no 200 from ${url}:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The client a team's frontend uses, at the versions this repository's lock file holds (so npm's cache has them). */
const CLIENT = {
  supabase: (JSON.parse(readFileSync(path.join(repoRoot, 'node_modules/@supabase/supabase-js/package.json'), 'utf8')) as { version: string }).version,
  ws: (JSON.parse(readFileSync(path.join(repoRoot, 'node_modules/ws/package.json'), 'utf8')) as { version: string }).version,
  wsTypes: (JSON.parse(readFileSync(path.join(repoRoot, 'node_modules/@types/ws/package.json'), 'utf8')) as { version: string }).version,
};

/** The team's development machine: the suite's cluster, a local GANTRY_HOME of its own. */
const devEnv = (): Record<string, string> => ({ DATABASE_URL: inject('databaseUrl'), GANTRY_HOME: path.join(tmp, 'home-dev') });

/** `npx gantry …` in a folder of the team's, through the installed package's bin. */
const npxGantry = (args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<CliResult> => ok(path.join(cwd, 'node_modules/.bin/gantry'), args, cwd, env);

const ref = uniqueRef('pkg');
let tmp: string;
let tarball: string;
let app: string;
let image: BuiltImage | null = null;
/** The version `migration new` gave the project's first migration. */
let notesVersion = '';

const EXTENSION = `import { defineExtension, ExtensionError } from 'gantry';
import type { Database } from '../../generated/${ref}/database.types.js';

export default defineExtension<Database>()({
  tables: {
    notes: {
      beforeInsert(rows) {
        return rows.map((row) => {
          const title = row.title.trim();
          if (title === '') throw new ExtensionError(422, 'title_required', 'A note needs a title');
          return { ...row, title, title_bytes: Buffer.byteLength(title) };
        });
      },
    },
  },
});
`;

/** A frontend's read, typed by the project's generated `Database`; a wrong column must not compile. */
const TYPED_CLIENT = `import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { Database } from './generated/${ref}/database.types.js';

const supabase = createClient<Database>(process.env.URL!, process.env.ANON!, { realtime: { transport: WebSocket as never } });
const { data, error } = await supabase.from('notes').select('title, title_bytes').order('id');
if (error) throw new Error(error.message);
const rows: { title: string; title_bytes: number | null }[] = data;
const bytes: number | null | undefined = rows[0]?.title_bytes;
console.log(JSON.stringify(rows.map((row) => ({ ...row, title_bytes: bytes === undefined ? null : row.title_bytes }))));
`;

const TYPED_CLIENT_TSCONFIG = `${JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true }, files: ['client.mts'] }, null, 2)}\n`;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-package-'));
  // The unprivileged user must reach the release's folder.
  await fs.chmod(tmp, 0o755);
  const packed = JSON.parse((await ok('npm', ['pack', '--pack-destination', tmp, '--json', '--ignore-scripts'], repoRoot)).stdout) as [{ filename: string }];
  tarball = packed[0].filename;
  app = path.join(tmp, 'app');
  await fs.mkdir(app);
});

afterAll(async () => {
  const env = { DATABASE_URL: inject('databaseUrl'), GANTRY_HOME: path.join(tmp, 'home-cleanup') };
  await run(path.join(app, 'node_modules/.bin/gantry'), ['project', 'delete', ref], app, env).catch(() => undefined);
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('gantry installed in a team repository', () => {
  it('installs with npm install --save-dev from the tarball, from the npm cache, copying nothing of Gantry’s package.json', async () => {
    await fs.writeFile(path.join(app, 'package.json'), `${JSON.stringify({ name: 'shop-app', version: '1.0.0', private: true }, null, 2)}\n`);
    await npmInstall(app, ['--save-dev', `../${tarball}`, `@supabase/supabase-js@${CLIENT.supabase}`, `ws@${CLIENT.ws}`, `@types/ws@${CLIENT.wsTypes}`]);
    expect(await readJson(path.join(app, 'package.json'))).toEqual({
      name: 'shop-app',
      version: '1.0.0',
      private: true,
      devDependencies: { '@supabase/supabase-js': `^${CLIENT.supabase}`, '@types/ws': `^${CLIENT.wsTypes}`, gantry: `file:../${tarball}`, ws: `^${CLIENT.ws}` },
    });
    expect(await exists(path.join(app, 'node_modules/gantry/runtime/index.ts'))).toBe(true);
    expect(await exists(path.join(app, 'node_modules/gantry/test'))).toBe(false);
    expect(await exists(path.join(app, 'node_modules/onnxruntime-node'))).toBe(false);
  });

  it('a hooked table’s extension typechecks against the repository’s own node_modules, as an editor checks it', async () => {
    await ok('git', ['init', '-q', '-b', 'main'], app);
    const init = JSON.parse((await npxGantry(['init', ref, '--json'], app)).stdout) as { files: { path: string; status: string }[] };
    expect(init.files.map((f) => `${f.status} ${f.path}`)).toEqual([
      'created gantry.toml',
      `created extensions/${ref}/tsconfig.json`,
      'created .gitignore',
      'created .gitattributes',
      'updated package.json',
      'created .github/workflows/gantry.yml',
    ]);
    const created = JSON.parse((await npxGantry(['migration', 'new', ref, 'notes', '--json'], app)).stdout) as { path: string; version: string };
    notesVersion = created.version;
    expect(path.dirname(created.path)).toBe(path.join(app, 'migrations', ref));
    await fs.writeFile(
      created.path,
      'CREATE TABLE notes (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, title text NOT NULL, title_bytes int);\n' +
        'GRANT SELECT ON notes TO anon;\n',
    );
    const extension = path.join(app, 'extensions', ref);
    await fs.writeFile(path.join(extension, 'index.ts'), EXTENSION);

    const migrated = await npxGantry(['migrate', ref], app, devEnv());
    expect(migrated.stdout).toContain(`created ${ref} (declared in gantry.toml) from 1 migration(s): ${created.version}_notes\n`);
    expect(await exists(path.join(app, 'generated', ref, 'database.types.ts'))).toBe(true);
    expect(await exists(path.join(app, 'node_modules/gantry/generated'))).toBe(false);

    const tsc = path.join(app, 'node_modules/.bin/tsc');
    expect(await run(tsc, ['-p', `extensions/${ref}`], app)).toEqual({ code: 0, stdout: '', stderr: '' });
    await fs.writeFile(path.join(extension, 'index.ts'), EXTENSION.replace('row.title.trim()', 'row.titel.trim()'));
    const broken = await run(tsc, ['-p', `extensions/${ref}`], app);
    expect(broken.code).toBe(2);
    expect(broken.stdout).toBe(
      `extensions/${ref}/index.ts(9,29): error TS2551: Property 'titel' does not exist on type ` +
        `'{ id?: undefined; title: string; title_bytes?: number | null | undefined; }'. Did you mean 'title'?\n`,
    );
    await fs.writeFile(path.join(extension, 'index.ts'), EXTENSION);
    await ok('git', ['add', '.'], app);
    await ok('git', ['-c', 'user.email=team@example.com', '-c', 'user.name=team', 'commit', '-qm', 'notes'], app);
  });

  it('the gate passes on the committed project, then fails on a hand-edited generated file, naming the fix', async () => {
    const passing = await npxGantry(['gen', '--check'], app, devEnv());
    expect(passing.stdout).toContain(`${ref}: up to date\n`);
    const index = path.join(app, 'generated', ref, 'index.ts');
    const committed = await fs.readFile(index, 'utf8');
    await fs.writeFile(index, `${committed}// edited by hand\n`);
    const failing = await run(path.join(app, 'node_modules/.bin/gantry'), ['gen', '--check'], app, devEnv());
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain(`${ref}: differs (1 file)\n`);
    expect(failing.stdout).toContain(`npx gantry gen ${ref}`);
    await fs.writeFile(index, committed);
  });

  it('a teammate’s fresh clone passes the gate with no database and no server, as CI sees it', async () => {
    const clone = path.join(tmp, 'clone');
    await ok('git', ['clone', '-q', app, clone], tmp);
    await ok('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], clone);
    // No DATABASE_URL and no GANTRY_HOME: the gate starts a throwaway PostgreSQL of its own.
    const gate = await npxGantry(['gen', '--check'], clone);
    expect(gate.stdout).toContain(`${ref}: up to date\n`);
    expect(gate.stdout).toMatch(/gen --check passes/);
    await fs.rm(clone, { recursive: true, force: true });
  });

  it('two branches each adding a migration merge, resolved by the one documented command, and the gate catches an edited merged migration', async () => {
    const commit = (message: string) => ok('git', ['-c', 'user.email=team@example.com', '-c', 'user.name=team', 'commit', '-qm', message], app);
    const addColumn = async (branch: string, column: string): Promise<void> => {
      await ok('git', ['checkout', '-q', '-b', branch, 'main'], app);
      const added = JSON.parse((await npxGantry(['migration', 'new', ref, `add_${column}`, '--json'], app)).stdout) as { path: string };
      await fs.writeFile(added.path, `ALTER TABLE notes ADD COLUMN ${column} text;\n`);
      await npxGantry(['migrate', ref], app, devEnv());
      await ok('git', ['add', '-A'], app);
      await commit(`add ${column}`);
    };
    await addColumn('add-a', 'a');
    // The local database now has branch add-a's column: branch add-b starts from main's schema again.
    await ok('git', ['checkout', '-q', 'main'], app);
    await npxGantry(['db', 'reset', ref, '--yes'], app, devEnv());
    await addColumn('add-b', 'b');

    await ok('git', ['checkout', '-q', 'main'], app);
    await ok('git', ['merge', '-q', 'add-a'], app);
    const merge = await run('git', ['-c', 'user.email=team@example.com', '-c', 'user.name=team', 'merge', '-q', 'add-b'], app);
    expect(merge.code).toBe(1);
    // Only generated files conflict: the migrations are two new files, and gantry.sum merges by union.
    const conflicted = (await ok('git', ['diff', '--name-only', '--diff-filter=U'], app)).stdout.trim().split('\n');
    expect(conflicted.length).toBeGreaterThan(0);
    expect(conflicted.every((file) => file.startsWith(`generated/${ref}/`))).toBe(true);
    await npxGantry(['gen', ref, '--from-migrations'], app, devEnv());
    await ok('git', ['add', '-A'], app);
    await commit('merge add-b');
    const gate = await npxGantry(['gen', '--check'], app, devEnv());
    expect(gate.stdout).toContain(`${ref}: up to date\n`);
    const types = await fs.readFile(path.join(app, 'generated', ref, 'database.types.ts'), 'utf8');
    expect(types).toMatch(/\ba: string \| null;[\s\S]*\bb: string \| null;/);

    // An edit of a migration already merged into main: the gate refuses it, naming the file.
    const [applied] = (await fs.readdir(path.join(app, 'migrations', ref))).filter((name) => name.endsWith('_add_a.sql'));
    await fs.appendFile(path.join(app, 'migrations', ref, applied!), 'CREATE INDEX ON notes (a);\n');
    const edited = await run(path.join(app, 'node_modules/.bin/gantry'), ['gen', '--check'], app, devEnv());
    expect(edited.code).toBe(1);
    expect(edited.stdout).toContain(applied);
    await ok('git', ['checkout', '--', 'migrations'], app);

    // The production release below creates the project again from its history, as on a new database.
    // `project delete` also removes generated/<ref>/, which the repository keeps: git restores it.
    await npxGantry(['project', 'delete', ref], app, devEnv());
    await ok('git', ['checkout', '--', 'generated'], app);
    expect(await ok('git', ['status', '--porcelain'], app)).toMatchObject({ stdout: '' });
  });

  it('the container file builds a production install with no network, which migrates and serves the hooked table as an unprivileged user', async () => {
    // A repository that deploys the server depends on gantry (--omit=dev would leave a dev dependency out).
    await npmInstall(app, ['--save-prod', `../${tarball}`]);
    expect((await readJson(path.join(app, 'package.json'))).dependencies).toEqual({ gantry: `file:../${tarball}` });
    const dockerfile = docsExample('docs/deploying.md', 'FROM node:20-bookworm-slim AS install');
    const built = await buildImage(dockerfile, app, path.join(tmp, 'image'), [path.join(tmp, tarball)]);
    image = built;
    expect(built.user).toBe(UNPRIVILEGED.name);
    expect(await exists(path.join(built.workdir, 'node_modules/gantry/bin/gantry.mjs'))).toBe(true);
    expect(await exists(path.join(built.workdir, 'node_modules/vitest'))).toBe(false);

    const [port, callsPort] = [await freePort(), await freePort()];
    // What `docker run -e DATABASE_URL -p 127.0.0.1:…` gives the container.
    const env = { ...built.env, DATABASE_URL: inject('databaseUrl'), HOST: '127.0.0.1', PORT: String(port), CALLS_PORT: String(callsPort), LOG_LEVEL: 'warn' };
    const gantry = (args: readonly string[]): Promise<CliResult> => ok(...asUnprivileged([path.join(built.workdir, 'node_modules/.bin/gantry'), ...args]), built.workdir, env);

    const migrated = await gantry(['migrate', '--all', '--production']);
    expect(migrated.stdout).toContain(`created ${ref} (declared in gantry.toml) from 3 migration(s): ${notesVersion}_notes, `);

    const [command, args] = asUnprivileged(built.cmd.map((word, i) => (i === 0 ? path.join(built.workdir, word) : word)));
    const server = spawn(command, args, { cwd: built.workdir, env: { ...baseEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
    try {
      await waitForHealth(`http://127.0.0.1:${port}/health`, () => output);
      const keys = JSON.parse((await gantry(['project', 'keys', ref, '--json'])).stdout) as { service_key: string; anon_key: string };
      const rest = `http://127.0.0.1:${port}/v1/${ref}/rest/v1/notes`;
      const headers = { apikey: keys.service_key, 'content-type': 'application/json' };

      const created = await fetch(rest, { method: 'POST', headers: { ...headers, Prefer: 'return=representation' }, body: JSON.stringify({ title: '  héllo  ' }) });
      expect([created.status, await created.json()]).toEqual([201, [{ id: 1, title: 'héllo', title_bytes: 6, a: null, b: null }]]);
      const refused = await fetch(rest, { method: 'POST', headers, body: JSON.stringify({ title: '   ' }) });
      expect([refused.status, await refused.json()]).toEqual([422, { code: 'title_required', message: 'A note needs a title', details: null, hint: null }]);
      const read = await fetch(`${rest}?select=title,title_bytes`, { headers });
      expect([read.status, await read.json()]).toEqual([200, [{ title: 'héllo', title_bytes: 6 }]]);

      // The team's frontend: supabase-js typed by the generated Database, compiled with the team's own TypeScript.
      await fs.writeFile(path.join(app, 'client.mts'), TYPED_CLIENT);
      await fs.writeFile(path.join(app, 'tsconfig.client.json'), TYPED_CLIENT_TSCONFIG);
      const tsc = path.join(app, 'node_modules/.bin/tsc');
      expect(await run(tsc, ['-p', 'tsconfig.client.json'], app)).toEqual({ code: 0, stdout: '', stderr: '' });
      const client = await ok(process.execPath, ['--import', 'tsx', 'client.mts'], app, { URL: `http://127.0.0.1:${port}/v1/${ref}`, ANON: keys.anon_key });
      expect(JSON.parse(client.stdout)).toEqual([{ title: 'héllo', title_bytes: 6 }]);
      await fs.writeFile(path.join(app, 'client.mts'), TYPED_CLIENT.replace('rows[0]?.title_bytes', 'rows[0]?.title_length'));
      const wrong = await run(tsc, ['-p', 'tsconfig.client.json'], app);
      expect(wrong.code).toBe(2);
      expect(wrong.stdout).toMatch(/^client\.mts\(9,51\): error TS2339: Property 'title_length' does not exist/);

      const health = await run(built.healthcheck[0]!, built.healthcheck.slice(1), built.workdir, env);
      expect(health.code).toBe(0);
    } finally {
      server.kill('SIGTERM');
    }
    expect(await exited, output).toBe(0);
  });

  it('the systemd unit passes systemd-analyze verify, pointed at the release', async (context) => {
    if ((await run('systemd-analyze', ['--version'], tmp).catch(() => null))?.code !== 0) context.skip();
    expect(image, 'the release of the previous test').not.toBeNull();
    const unit = docsExample('docs/deploying.md', '[Unit]').replaceAll('/srv/shop', image!.workdir).replaceAll('/usr/bin/node', process.execPath);
    const file = path.join(tmp, 'gantry.service');
    await fs.writeFile(file, unit);
    expect(await run('systemd-analyze', ['verify', file], tmp)).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});
