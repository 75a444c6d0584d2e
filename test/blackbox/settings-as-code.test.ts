import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli, installation, serve, shutDown, type CliRun, type Installation, type Server } from '../helpers/serve-process.js';
import { callProject, eventually, session, uniqueRef, type PrintedKeys } from '../helpers/blackbox-projects.js';

/**
 * Settings as code: a team's repository (a folder with its own gantry.toml, migrations/ and generated/) declares a
 * project's settings; `migrate`, `project config --set`, `gen --check --live`, `gantry diff` and `config import`
 * run as separate processes from that folder beside a running `gantry serve`, observed over HTTP and in the file.
 */

vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });

const git = promisify(execFile);

let server: Server;
let inst: Installation;
let repo: string;
const ref = uniqueRef('sc');
const GITHUB_SECRET = 'gh-secret-value-1';

const TOML = `# The helpdesk team's Gantry configuration.
[projects.${ref}]

[projects.${ref}.settings]
# New users are confirmed at once while we pilot.
"auth.autoconfirm" = true
"auth.site_url" = "https://helpdesk.example"
"auth.external.github.enabled" = true
"auth.external.github.client_id" = "gh-client"
"auth.external.github.secret" = "env(GITHUB_SECRET)"
"api.schemas" = "public,api"
`;

/** A gantry command run from the team's repository folder. */
function gantry(args: readonly string[], env: Record<string, string> = { GITHUB_SECRET }, cwd = repo): Promise<CliRun> {
  // The server has the variable; each command only what the test gives it.
  const { GITHUB_SECRET: _, ...base } = inst.env;
  return cli(args, { ...base, ...env }, cwd);
}

async function gantryJson(args: readonly string[], env?: Record<string, string>): Promise<Record<string, unknown>> {
  const run = await gantry([...args, '--json'], env);
  if (run.code !== 0) throw new Error(`gantry ${args.join(' ')} exited ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return run.json as Record<string, unknown>;
}

const tomlPath = () => path.join(repo, 'gantry.toml');

let keys: PrintedKeys;
const authSettings = () => callProject(inst.baseUrl, keys, 'GET', 'auth/v1/settings');

beforeAll(async () => {
  inst = await installation({ env: { GITHUB_SECRET } });
  repo = inst.home;
  await fs.mkdir(path.join(repo, 'migrations', ref), { recursive: true });
  await fs.writeFile(
    path.join(repo, 'migrations', ref, '20260101000000_notes.sql'),
    'create table public.notes (id bigint primary key, body text);\ncreate schema api;\ncreate table api.items (id bigint primary key);\n' +
      'grant usage on schema api to anon, authenticated, service_role;\ngrant select on api.items to anon;\n',
  );
  await fs.writeFile(tomlPath(), TOML);
  server = await serve({ ...inst, cwd: repo });
});
afterAll(async () => {
  await shutDown(server);
});

describe('settings in gantry.toml', () => {
  it('serve creates the declared project with its settings before it serves: sign-up returns a session, api.schemas exposes api', async () => {
    keys = (await gantryJson(['project', 'keys', ref])) as unknown as PrintedKeys;
    const answer = await authSettings();
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ mailer_autoconfirm: true, disable_signup: false, external: { github: true, email: true } });
    const signedUp = session(await callProject(inst.baseUrl, keys, 'POST', 'auth/v1/signup', { body: { email: `${ref}@example.com`, password: 'a-long-password-1' } }));
    expect(signedUp.user.email).toBe(`${ref}@example.com`);
    const items = await callProject(inst.baseUrl, keys, 'GET', 'rest/v1/items', { headers: { 'Accept-Profile': 'api' } });
    expect([items.status, items.body]).toEqual([200, []]);
  });

  it('migrate then finds the settings in sync and writes none', async () => {
    const migrated = await gantryJson(['migrate', ref]);
    expect(migrated.settings).toEqual({ ref, changed: [], database_only: [], generated: null });
    const text = await gantry(['migrate', ref]);
    expect(text.stdout).toContain(`${ref}: settings in sync with gantry.toml`);
  });

  it('migrate creates a newly declared project from its history and applies its settings', async () => {
    const second = uniqueRef('sd');
    await fs.mkdir(path.join(repo, 'migrations', second), { recursive: true });
    await fs.writeFile(
      path.join(repo, 'migrations', second, '20260101000000_notes.sql'),
      'create table public.notes (id bigint primary key);\ncreate schema api;\ncreate table api.items (id bigint primary key);\ngrant usage on schema api to anon, authenticated, service_role;\n',
    );
    const declaring = (schemas: string) =>
      `${TOML}\n[projects.${second}.settings]\n"auth.autoconfirm" = true\n"auth.external.github.secret" = "env(GITHUB_SECRET)"\n"api.schemas" = "${schemas}"\n`;
    await fs.writeFile(tomlPath(), declaring('public,api'));
    try {
      const migrated = await gantryJson(['migrate', second]);
      expect(migrated.created).toBe(true);
      const applied = migrated.settings as { changed: unknown[]; generated: { changed: string[] } };
      expect(applied.changed).toEqual([
        { key: 'auth.autoconfirm', file: 'true', database: 'false' },
        { key: 'auth.external.github.secret', file: 'env(GITHUB_SECRET)', database: '(not set)' },
        { key: 'api.schemas', file: 'public,api', database: '(not set)' },
      ]);
      expect(applied.generated.changed).toContain('openapi.api.json');
      expect(JSON.stringify(migrated)).not.toContain(GITHUB_SECRET);
      const secondKeys = (await gantryJson(['project', 'keys', second])) as unknown as PrintedKeys;
      const served = () => callProject(inst.baseUrl, secondKeys, 'GET', 'auth/v1/settings');
      await eventually(30_000, served, (a) => (a.body as { mailer_autoconfirm?: boolean }).mailer_autoconfirm === true);
      const signedUp = await callProject(inst.baseUrl, secondKeys, 'POST', 'auth/v1/signup', { body: { email: `${second}@example.com`, password: 'a-long-password-1' } });
      expect(session(signedUp).user.email).toBe(`${second}@example.com`);

      // The scratch gate builds with the file's api.schemas: the committed code passes, and dropping the schema from the file fails it.
      const gate = await gantry(['gen', '--check', second]);
      expect(gate.code, gate.stdout + gate.stderr).toBe(0);
      await fs.writeFile(tomlPath(), declaring('public'));
      const dropped = await gantry(['gen', '--check', second]);
      expect(dropped.code).toBe(1);
      expect(dropped.stdout).toContain(`${second}: differs`);
    } finally {
      await fs.writeFile(tomlPath(), TOML);
    }
  });

  it('an unset secret variable stops migrate with a coded error naming the setting and the variable', async () => {
    const run = await gantry(['migrate', ref, '--json'], {});
    expect(run.code).toBe(1);
    expect(run.json).toEqual({
      error: {
        code: 'setting_env_unset',
        message: `project "${ref}": gantry.toml sets auth.external.github.secret = env(GITHUB_SECRET), and that variable is not set in the environment`,
      },
    });
  });

  it('db reset applies the file after rebuilding the database', async () => {
    await fs.writeFile(tomlPath(), TOML.replace('https://helpdesk.example', 'https://reset.example'));
    try {
      const reset = await gantryJson(['db', 'reset', ref, '--yes']);
      expect(reset.settings).toEqual({
        ref,
        changed: [{ key: 'auth.site_url', file: 'https://reset.example', database: 'https://helpdesk.example' }],
        database_only: [],
        generated: null,
      });
    } finally {
      await fs.writeFile(tomlPath(), TOML);
    }
  });

  it('project config --set writes the line into the file, keeps its comments, and applies it', async () => {
    const result = await gantryJson(['project', 'config', ref, '--set', 'auth.disable_signup=true', '--set', 'auth.site_url=https://desk.example']);
    expect(result.written).toEqual({ file: tomlPath(), lines: ['"auth.disable_signup" = true', '"auth.site_url" = "https://desk.example"'] });
    expect(await fs.readFile(tomlPath(), 'utf8')).toBe(
      TOML.replace('"auth.site_url" = "https://helpdesk.example"', '"auth.site_url" = "https://desk.example"') + '"auth.disable_signup" = true\n',
    );
    await eventually(30_000, authSettings, (a) => (a.body as { disable_signup?: boolean }).disable_signup === true);
  });

  it('project config --set refuses a secret value with the reference line to add, and takes a reference', async () => {
    const before = await fs.readFile(tomlPath(), 'utf8');
    const refused = await gantry(['project', 'config', ref, '--set', 'auth.external.github.secret=plain-value', '--json']);
    expect(refused.code).toBe(1);
    expect(refused.json).toEqual({
      error: {
        code: 'secret_in_config_file',
        message: `auth.external.github.secret is a secret: ${tomlPath()} holds only a reference to an environment variable, never its value; write instead: "auth.external.github.secret" = "env(GITHUB_SECRET)" (and set GITHUB_SECRET where gantry runs)`,
      },
    });
    expect(await fs.readFile(tomlPath(), 'utf8')).toBe(before);

    const taken = await gantryJson(['project', 'config', ref, '--set', 'auth.external.github.secret=env(GH_OTHER)'], { GH_OTHER: 'another-secret' });
    expect(taken.written).toEqual({ file: tomlPath(), lines: ['"auth.external.github.secret" = "env(GH_OTHER)"'] });
    expect(JSON.stringify(taken)).not.toContain('another-secret');
    expect(await fs.readFile(tomlPath(), 'utf8')).toBe(before.replace('"env(GITHUB_SECRET)"', '"env(GH_OTHER)"'));
  });

  it('gen --check --live reports a setting changed in the database only, and passes once migrate re-applies the file', async () => {
    // A change made outside the file: project config from a folder without gantry.toml writes the database only.
    const elsewhere = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-no-toml-'));
    try {
      const outside = await gantry(['project', 'config', ref, '--set', 'auth.site_url=https://drifted.example', '--set', 'auth.anonymous_users=true', '--json'], {}, elsewhere);
      expect(outside.code).toBe(0);
    } finally {
      await fs.rm(elsewhere, { recursive: true, force: true });
    }
    const env = { GH_OTHER: 'another-secret' };
    const check = await gantry(['gen', ref, '--check', '--live'], env);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(`${ref}: setting auth.site_url differs: gantry.toml https://desk.example, database https://drifted.example`);
    expect(check.stdout).toContain(`${ref}: set in the database only (not in gantry.toml): auth.anonymous_users`);
    expect(check.stdout).not.toContain('another-secret');

    const json = await gantry(['gen', ref, '--check', '--live', '--json'], env);
    const project = (json.json as { projects: { settings: unknown }[] }).projects[0]!;
    expect(project.settings).toEqual({
      changes: [{ key: 'auth.site_url', file: 'https://desk.example', database: 'https://drifted.example' }],
      database_only: ['auth.anonymous_users'],
    });

    await gantryJson(['migrate', ref], env);
    const passing = await gantry(['gen', ref, '--check', '--live'], env);
    expect(passing.code).toBe(0);
  });

  it('gantry diff shows the settings changed in gantry.toml since the base revision', async () => {
    await git('git', ['-C', repo, 'init', '-q']);
    await git('git', ['-C', repo, 'add', '-A']);
    await git('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'base']);
    const text = await fs.readFile(tomlPath(), 'utf8');
    await fs.writeFile(tomlPath(), text.replace('"auth.autoconfirm" = true', '"auth.autoconfirm" = false') + '"api.max_rows" = 50\n');

    const diff = await gantry(['diff', ref, '--json']);
    expect(diff.code).toBe(0);
    expect((diff.json as { settings: unknown }).settings).toEqual([
      { key: 'api.max_rows', change: 'added', base: null, head: '50' },
      { key: 'auth.autoconfirm', change: 'changed', base: 'true', head: 'false' },
    ]);
    const shown = await gantry(['diff', ref]);
    expect(shown.stdout).toContain(`Settings: 2 changed in gantry.toml [projects.${ref}.settings]\n  + api.max_rows = 50\n  ~ auth.autoconfirm: true -> false`);
    const markdown = await gantry(['diff', ref, '--format', 'markdown']);
    expect(markdown.stdout).toContain('| `auth.autoconfirm` | `true` | `false` |');
    await fs.writeFile(tomlPath(), text);
  });

  it("config import writes a Supabase CLI config.toml's [auth] into gantry.toml and lists what it leaves out", async () => {
    const imported = uniqueRef('si');
    await fs.mkdir(path.join(repo, 'supabase'), { recursive: true });
    await fs.writeFile(
      path.join(repo, 'supabase', 'config.toml'),
      '[api]\nport = 54321\nmax_rows = 200\n\n[auth]\nsite_url = "https://imported.example"\njwt_expiry = 3600\n\n[auth.email]\nenable_confirmations = false\n\n' +
        '[auth.external.google]\nenabled = true\nclient_id = "g-client"\nsecret = "literal-google-secret"\n',
    );
    const before = await fs.readFile(tomlPath(), 'utf8');
    const result = await gantryJson(['config', 'import', imported]);
    expect(result.skipped).toEqual(['api.port: no Gantry setting', 'auth.jwt_expiry: no Gantry setting']);
    expect(result.references).toEqual(['SUPABASE_AUTH_EXTERNAL_GOOGLE_SECRET']);
    expect(await fs.readFile(tomlPath(), 'utf8')).toBe(
      before +
        `\n[projects.${imported}.settings]\n"api.max_rows" = 200\n"auth.site_url" = "https://imported.example"\n"auth.autoconfirm" = true\n` +
        `"auth.external.google.enabled" = true\n"auth.external.google.client_id" = "g-client"\n"auth.external.google.secret" = "env(SUPABASE_AUTH_EXTERNAL_GOOGLE_SECRET)"\n`,
    );
    expect(JSON.stringify(result)).not.toContain('literal-google-secret');
  });
});
