import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteProject } from '../../../runtime/platform/bootstrap.js';
import { Platform } from '../../../runtime/platform/platform.js';
import { loadConfig } from '../../../runtime/config.js';
import { countingCodeSync } from '../../helpers/counting-code-sync.js';
import { createTestProject, randomRef, startTestHost, testEnv, type TestHost, type TestProject } from '../../helpers/platform.js';

/**
 * A host restarted on the same GANTRY_HOME: a project whose schema did not change is served
 * without introspecting it again, and every way its code could have gone stale meanwhile (DDL,
 * generated files edited or deleted, the project deleted and created again) is still caught.
 */

/** The refs whose schema the host introspected, in order. */
const introspected: string[] = [];

const counting = countingCodeSync(introspected);

let env: Record<string, string>;
let t: TestHost | null = null;
let project: TestProject;
const ref = randomRef('sc');

async function stop(): Promise<void> {
  await t?.close();
  t = null;
}

async function restart(): Promise<void> {
  await stop();
  introspected.length = 0;
  t = await startTestHost({}, { env, code: counting });
}

async function get(query: string): Promise<[number, unknown]> {
  const response = await fetch(`${t!.host.baseUrl}/v1/${ref}/rest/v1/${query}`, { headers: { apikey: project.keys.anon_key } });
  return [response.status, await response.json()];
}

/** A query on the project's database, as psql would run it, host or no host. */
async function sql<R extends pg.QueryResultRow>(text: string): Promise<R[]> {
  const url = new URL(env.DATABASE_URL!);
  url.pathname = `/${project.record.databaseName}`;
  const client = new pg.Client(url.toString());
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}

const sqlWhileDown = async (text: string): Promise<void> => {
  expect(t).toBeNull();
  await sql(text);
};

const generated = (file: string) => path.join(env.GANTRY_GENERATED_DIR!, ref, file);

beforeAll(async () => {
  env = await testEnv();
  t = await startTestHost({}, { env, code: counting });
  project = await createTestProject(t.platform, { ref, sql: `create table item (id int primary key, label text); insert into item values (1, 'kettle'); grant select on item to anon;` });
});
afterAll(async () => {
  await t?.close();
});

describe('schema checks across host restarts', () => {
  it('introspects a project on its first load and keeps the check under GANTRY_HOME', async () => {
    expect(await get('item?select=id,label')).toEqual([200, [{ id: 1, label: 'kettle' }]]);
    expect(introspected).toEqual([ref]);
    const check = JSON.parse(await fs.readFile(path.join(env.GANTRY_HOME!, 'schema-checks', `${ref}.json`), 'utf8')) as Record<string, unknown>;
    const [{ cluster, oid, last_value }] = (await sql<{ cluster: string; oid: string; last_value: string }>(
      `SELECT (SELECT system_identifier::text FROM pg_control_system()) AS cluster, (SELECT oid::text FROM pg_database WHERE datname = current_database()) AS oid,
              last_value::text FROM gantry.schema_version`,
    )) as [{ cluster: string; oid: string; last_value: string }];
    const header = /"fingerprint": "sha256:([0-9a-f]{64})"/.exec(await fs.readFile(generated('schema.json'), 'utf8'))![1];
    expect(check).toEqual({
      version: `${cluster}:${oid}:${last_value}/true`,
      schemas: ['public'],
      fingerprint: header,
    });
  });

  it('serves an unchanged project after a restart without introspecting it', async () => {
    await restart();
    expect(await get('item?select=id,label')).toEqual([200, [{ id: 1, label: 'kettle' }]]);
    expect(introspected).toEqual([]);
  });

  it('introspects a project whose schema changed while no host ran, and serves the new column', async () => {
    await stop();
    await sqlWhileDown(`ALTER TABLE item ADD COLUMN weight int; UPDATE item SET weight = 3`);
    await restart();
    expect(await get('item?select=id,weight')).toEqual([200, [{ id: 1, weight: 3 }]]);
    expect(introspected).toEqual([ref]);
    expect(await fs.readFile(generated('tables/item.ts'), 'utf8')).toContain('weight');
  });

  it('introspects again when the generated code was edited or deleted while no host ran', async () => {
    const index = await fs.readFile(generated('index.ts'), 'utf8');
    const snapshot = await fs.readFile(generated('schema.json'), 'utf8');
    await fs.writeFile(generated('schema.json'), snapshot.replace(/sha256:[0-9a-f]{64}/, `sha256:${'0'.repeat(64)}`));
    await restart();
    expect(await get('item?select=id')).toEqual([200, [{ id: 1 }]]);
    expect(introspected).toEqual([ref]);
    expect(await fs.readFile(generated('schema.json'), 'utf8')).toBe(snapshot);

    await fs.rm(path.join(env.GANTRY_GENERATED_DIR!, ref), { recursive: true });
    await restart();
    expect(await get('item?select=id')).toEqual([200, [{ id: 1 }]]);
    expect(introspected).toEqual([ref]);
    expect(await fs.readFile(generated('index.ts'), 'utf8')).toBe(index);
  });

  it('introspects a project deleted and created again under the same ref, even at the same schema version', async () => {
    const [before] = await sql<{ v: string }>(`SELECT last_value::text AS v FROM gantry.schema_version`);
    await stop();
    const platform = await Platform.open(loadConfig(env));
    try {
      await deleteProject(platform, ref);
      // The same statements as the first project's (so the same version), another column.
      project = await createTestProject(platform, { ref, sql: `create table item (id int primary key, label text); insert into item values (2, 'teapot'); grant select on item to anon;` });
    } finally {
      await platform.close();
    }
    await sqlWhileDown(`ALTER TABLE item ADD COLUMN note text; UPDATE item SET note = 'spout'`);
    await restart();
    expect(await sql<{ v: string }>(`SELECT last_value::text AS v FROM gantry.schema_version`)).toEqual([before]);
    expect(await get('item?select=id,note')).toEqual([200, [{ id: 2, note: 'spout' }]]);
    expect(introspected).toEqual([ref]);
  });
});
