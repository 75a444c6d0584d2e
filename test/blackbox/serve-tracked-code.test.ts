import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { uniqueRef } from '../helpers/blackbox-projects.js';
import { cliOk, installation, removeInstallation, serve, type Installation, type Server } from '../helpers/serve-process.js';

/**
 * A team's repository with committed generated code, and a database whose schema moved without it (DDL made
 * outside migrations; equally, a new version started before `migrate`): `gantry serve` serves the committed code,
 * rewrites no file git tracks, and says which command fixes it.
 */

let inst: Installation | null = null;
let server: Server | null = null;

afterAll(async () => {
  await server?.stop();
  if (inst) await removeInstallation(inst);
});

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' });

describe('gantry serve in a repository that tracks its generated code', () => {
  it('leaves tracked files alone when the database differs, serves, and names the fix', async () => {
    const ref = uniqueRef('tk');
    const base = await installation();
    const root = path.join(base.home, 'repo');
    await fs.mkdir(path.join(root, 'migrations', ref), { recursive: true });
    // The team's root holds every folder: no GANTRY_*_DIR points elsewhere.
    inst = { ...base, cwd: root, env: { ...base.env, GANTRY_GENERATED_DIR: '' } };
    await fs.writeFile(path.join(root, 'gantry.toml'), `[projects.${ref}]\n`);
    await fs.writeFile(
      path.join(root, 'migrations', ref, '20261128000000_items.sql'),
      'create table items (id int primary key, name text not null);\ninsert into items values (1, $$one$$);\ngrant select on items to anon;\n',
    );
    const migrated = JSON.parse((await cliOk(['migrate', '--all', '--json'], inst.env, root)).stdout) as { projects: { ref: string; created: boolean }[] };
    expect(migrated.projects.map((p) => [p.ref, p.created])).toEqual([[ref, true]]);
    git(root, 'init', '-q');
    git(root, 'add', '.');
    git(root, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'init');
    const committed = await fs.readFile(path.join(root, 'generated', ref, 'schema.json'), 'utf8');

    const client = new pg.Client({ connectionString: inst.env.DATABASE_URL!.replace(/\/[^/]*$/, `/project_${ref}`) });
    await client.connect();
    await client.query('alter table items add column note text');
    await client.end();

    server = await serve(inst);
    const res = await fetch(`${inst.baseUrl}/v1/${ref}/rest/v1/items?select=id,name`, { headers: { apikey: server.anonKey } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ id: 1, name: 'one' }]);
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect(await fs.readFile(path.join(root, 'generated', ref, 'schema.json'), 'utf8')).toBe(committed);
    expect(server.output()).toContain(`generated/${ref}/ is tracked by git and was not generated from the schema of this database`);
    expect(server.output()).toContain(`\`npx gantry gen ${ref}\``);
  });
});
