import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileWithTypes } from '../../helpers/typescript.js';
import { createTestProject, fixtureSchema, readGenerated, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { errorBody, restCaller, supabaseClient, userToken } from './http.js';

/**
 * A partitioned table (test/fixtures/schemas/rest-computed.sql: `events`, its partitions
 * `events_2024` and `events_2025`, a foreign key from it to `channels` and one to it from
 * `event_notes`). As PostgREST 10+: the partitioned table is a resource that reads, writes
 * and embeds both ways; its partitions are not in the schema cache. As `supabase gen types`:
 * database.types.ts lists the partitions as tables too.
 */

let host: TestHost;
let project: TestProject;
let call: ReturnType<typeof restCaller>;
const SERVICE = (): string => userToken(project, '00000000-0000-0000-0000-0000000000a1', { role: 'service_role' });

const generated = (file: string): Promise<string> => readGenerated(host.platform, project, file);

async function partitionOf(id: number): Promise<string[]> {
  const client = new pg.Client(host.platform.cluster.urlFor(project.record.databaseName));
  await client.connect();
  try {
    const { rows } = await client.query<{ part: string }>('select tableoid::regclass::text as part from events where id = $1', [id]);
    return rows.map((row) => row.part);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  host = await startTestHost();
  project = await createTestProject(host.platform, { host: host.host, sql: await fixtureSchema('rest-computed.sql'), generate: true });
  call = restCaller(project);
});
afterAll(() => host?.close());

describe('a partitioned table over HTTP', () => {
  it('reads the rows of every partition', async () => {
    const res = await call('/events?select=id,happened&order=id');
    expect([res.status, res.json]).toEqual([200, [{ id: 1, happened: '2024-05-01' }, { id: 2, happened: '2025-02-01' }]]);
    const filtered = await call('/events?select=id&happened=gte.2025-01-01');
    expect(filtered.json).toEqual([{ id: 2 }]);
  });

  it('routes an insert into its partition, upserts on the partition key, and refuses a row no partition takes', async () => {
    const created = await call('/events', {
      method: 'POST', body: { id: 10, happened: '2025-06-01', channel_id: 1 }, headers: { Prefer: 'return=representation' },
    });
    expect([created.status, created.json]).toEqual([201, [{ id: 10, happened: '2025-06-01', channel_id: 1 }]]);
    expect(await partitionOf(10)).toEqual(['events_2025']);
    // PostgREST's statuses: 201 when the upsert inserted a row, 200 when it only updated.
    const upsert = (body: unknown) => call('/events?select=id,channel_id', {
      method: 'POST', body, headers: { Prefer: 'return=representation,resolution=merge-duplicates' },
    });
    const mixed = await upsert([{ id: 10, happened: '2025-06-01', channel_id: 2 }, { id: 13, happened: '2024-02-01', channel_id: null }]);
    expect([mixed.status, mixed.json]).toEqual([201, [{ id: 10, channel_id: 2 }, { id: 13, channel_id: null }]]);
    expect(await partitionOf(13)).toEqual(['events_2024']);
    const updated = await upsert([{ id: 10, happened: '2025-06-01', channel_id: 3 }]);
    expect([updated.status, updated.json]).toEqual([200, [{ id: 10, channel_id: 3 }]]);
    const outside = await call('/events', { method: 'POST', body: { id: 11, happened: '2030-01-01' } });
    expect([outside.status, outside.json]).toEqual([400, errorBody(
      '23514',
      'no partition of relation "events" found for row',
      'Partition key of the failing row contains (happened) = (2030-01-01).',
    )]);
    const deleted = await call('/events?id=in.(10,13)&select=id&order=id', { method: 'DELETE', token: SERVICE() });
    expect([deleted.status, deleted.json]).toEqual([200, [{ id: 10 }, { id: 13 }]]);
  });

  it('embeds through its foreign key and through the one that references it, both ways', async () => {
    const toOne = await call('/events?select=id,channels(slug)&order=id');
    expect(toOne.json).toEqual([{ id: 1, channels: { slug: 'general' } }, { id: 2, channels: { slug: 'random' } }]);
    const toMany = await call('/channels?select=id,events(id)&id=in.(1,3)&order=id');
    expect(toMany.json).toEqual([{ id: 1, events: [{ id: 1 }] }, { id: 3, events: [] }]);
    const referencing = await call('/event_notes?select=note,events(id,happened)&order=id');
    expect(referencing.json).toEqual([
      { note: 'first', events: { id: 1, happened: '2024-05-01' } },
      { note: 'second', events: { id: 2, happened: '2025-02-01' } },
    ]);
    const referenced = await call('/events?select=id,event_notes(note),channels!inner(slug)&channels.slug=eq.random');
    expect(referenced.json).toEqual([{ id: 2, event_notes: [{ note: 'second' }], channels: { slug: 'random' } }]);
  });

  it('keeps its partitions out of the API, the OpenAPI document and api.d.ts, as PostgREST', async () => {
    const direct = await call('/events_2024');
    expect([direct.status, (direct.json as { message?: string }).message]).toEqual([404, "Could not find the table 'public.events_2024' in the schema cache"]);
    const embed = await call('/channels?select=id,events_2024(id)');
    expect([embed.status, (embed.json as { code?: string }).code]).toEqual([400, 'PGRST200']);
    const doc = JSON.parse(await generated('openapi.json')) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/rest/v1/event'))).toEqual(['/rest/v1/event_notes', '/rest/v1/events']);
    expect(await generated('api.d.ts')).not.toContain('"/rest/v1/events_2024"');
    // A function returning a partition's rows is callable; its result is the partition's row.
    const rpc = await call('/rpc/events_of_2024?select=id,happened');
    expect([rpc.status, rpc.json]).toEqual([200, [{ id: 1, happened: '2024-05-01' }]]);
    const post = (doc as { paths: Record<string, { post?: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }> })
      .paths['/rest/v1/rpc/events_of_2024']?.post?.responses['200']?.content['application/json']?.schema;
    expect(post).toMatchObject({ type: 'array', items: { type: 'object', properties: { id: { type: ['integer', 'null'] }, happened: { type: ['string', 'null'] } } } });
  });
});

describe("PostgREST's partitioned tables embedding (QuerySpec)", () => {
  const json = async (path: string): Promise<[number, unknown]> => {
    const res = await call(path);
    return [res.status, res.json];
  };

  it('embeds a table as parent of a partitioned table, and partitioned tables as its children', async () => {
    expect(await json('/car_models?name=in.(DeLorean,Murcielago)&select=name,year,car_brands(name)&order=name.asc')).toEqual([200, [
      { name: 'DeLorean', year: 1981, car_brands: { name: 'DMC' } },
      { name: 'Murcielago', year: 2001, car_brands: { name: 'Lamborghini' } },
    ]]);
    expect(await json('/car_brands?select=name,car_models(name,year)&order=name.asc&car_models.order=name.asc')).toEqual([200, [
      { name: 'DMC', car_models: [{ name: 'DeLorean', year: 1981 }] },
      { name: 'Ferrari', car_models: [{ name: 'F310-B', year: 1997 }] },
      { name: 'Lamborghini', car_models: [{ name: 'Murcielago', year: 2001 }, { name: 'Veneno', year: 2013 }] },
    ]]);
  });

  it('embeds tables as children of a partitioned table, and a partitioned table as parent of a table', async () => {
    expect(await json('/car_models?name=in.(DeLorean,F310-B)&select=name,year,car_racers(name)&order=name.asc')).toEqual([200, [
      { name: 'DeLorean', year: 1981, car_racers: [] },
      { name: 'F310-B', year: 1997, car_racers: [{ name: 'Michael Schumacher' }] },
    ]]);
    expect(await json('/car_racers?select=name,car_models(name,year)&order=name.asc')).toEqual([200, [
      { name: 'Alain Prost', car_models: null },
      { name: 'Michael Schumacher', car_models: { name: 'F310-B', year: 1997 } },
    ]]);
  });

  it('embeds partitioned tables in each other both ways, and many-to-many through a partitioned junction', async () => {
    expect(await json('/car_models?name=in.(DeLorean,Murcielago,Veneno)&select=name,year,car_model_sales(date,quantity)&order=name.asc')).toEqual([200, [
      { name: 'DeLorean', year: 1981, car_model_sales: [{ date: '2021-01-14', quantity: 7 }, { date: '2021-01-15', quantity: 9 }] },
      { name: 'Murcielago', year: 2001, car_model_sales: [{ date: '2021-02-11', quantity: 1 }, { date: '2021-02-12', quantity: 3 }] },
      { name: 'Veneno', year: 2013, car_model_sales: [] },
    ]]);
    expect(await json('/car_model_sales?date=in.(2021-01-15,2021-02-11)&select=date,quantity,car_models(name,year)&order=date.asc')).toEqual([200, [
      { date: '2021-01-15', quantity: 9, car_models: { name: 'DeLorean', year: 1981 } },
      { date: '2021-02-11', quantity: 1, car_models: { name: 'Murcielago', year: 2001 } },
    ]]);
    expect(await json('/car_models?select=name,year,car_dealers(name,city)&order=name.asc&limit=4')).toEqual([200, [
      { name: 'DeLorean', year: 1981, car_dealers: [{ name: 'Springfield Cars S.A.', city: 'Springfield' }] },
      { name: 'F310-B', year: 1997, car_dealers: [] },
      { name: 'Murcielago', year: 2001, car_dealers: [{ name: 'The Best Deals S.A.', city: 'Franklin' }] },
      { name: 'Veneno', year: 2013, car_dealers: [] },
    ]]);
  });

  it('offers no partition as an embed target, child or parent: PGRST200 before the columns it names are looked at', async () => {
    // car_models has no `id`: the relationship is what PostgREST refuses first (it leaves columns to PostgreSQL).
    expect(await json('/car_models?id=in.(1,2,4)&select=id,name,car_model_sales_202101(id)&order=id.asc')).toEqual([400, errorBody(
      'PGRST200',
      "Could not find a relationship between 'car_models' and 'car_model_sales_202101' in the schema cache",
      "Searched for a foreign key relationship between 'car_models' and 'car_model_sales_202101' in the schema 'public', but no matches were found.",
      "Perhaps you meant 'car_model_sales' instead of 'car_model_sales_202101'.",
    )]);
    expect(await json('/car_model_sales?id=in.(1,3,4)&select=id,name,car_models_default(id,name)&order=id.asc')).toEqual([400, errorBody(
      'PGRST200',
      "Could not find a relationship between 'car_model_sales' and 'car_models_default' in the schema cache",
      "Searched for a foreign key relationship between 'car_model_sales' and 'car_models_default' in the schema 'public', but no matches were found.",
      "Perhaps you meant 'car_models' instead of 'car_models_default'.",
    )]);
  });

  it('answers a partition as the first table with table not found and no hint (404, 42P01 here for PGRST205)', async () => {
    for (const [path, name] of [
      ['/car_model_sales_202101?select=id,name,car_models(id,name)&order=id.asc', 'car_model_sales_202101'],
      ['/car_models_default?select=id,name,car_model_sales(id,name)&order=id.asc', 'car_models_default'],
    ]) {
      expect(await json(path!)).toEqual([404, errorBody('42P01', `Could not find the table 'public.${name}' in the schema cache`)]);
    }
  });
});

describe('through supabase-js', () => {
  it('reads, inserts and embeds', async () => {
    const supabase = supabaseClient(project);
    const read = await supabase.from('events').select('id, channels(slug), event_notes(note)').eq('id', 1);
    expect([read.status, read.error, read.data]).toEqual([200, null, [{ id: 1, channels: { slug: 'general' }, event_notes: [{ note: 'first' }] }]]);
    const inserted = await supabase.from('events').insert({ id: 12, happened: '2024-12-31' }).select('id, happened');
    expect([inserted.status, inserted.error, inserted.data]).toEqual([201, null, [{ id: 12, happened: '2024-12-31' }]]);
    expect(await partitionOf(12)).toEqual(['events_2024']);
    await call('/events?id=eq.12', { method: 'DELETE', token: SERVICE() });
  });
});

/** Row, Insert and Update of `events` and of each partition alike. */
const EVENT_COLUMNS = `        Row: {
          channel_id: number | null;
          happened: string;
          id: number;
        };
        Insert: {
          channel_id?: number | null;
          happened: string;
          id: number;
        };
        Update: {
          channel_id?: number | null;
          happened?: string;
          id?: number;
        };
`;

describe('database.types.ts', () => {
  it('lists the partitioned table and its partitions as tables, as supabase gen types', async () => {
    const types = await generated('database.types.ts');
    expect(types).toContain(`      events: {
${EVENT_COLUMNS}        Relationships: [
          {
            foreignKeyName: "events_channel_id_fkey";
            columns: ["channel_id"];
            isOneToOne: false;
            referencedRelation: "active_channels";
            referencedColumns: ["id"];
          },
          {
            foreignKeyName: "events_channel_id_fkey";
            columns: ["channel_id"];
            isOneToOne: false;
            referencedRelation: "channels";
            referencedColumns: ["id"];
          },
        ];
      };
`);
    // The partition's copy of the parent's foreign key is not its own (postgres-meta reads conparentid = 0 only).
    expect(types).toContain(`      events_2024: {
${EVENT_COLUMNS}        Relationships: [];
      };
      events_2025: {
`);
    expect(types).toContain(`        Relationships: [
          {
            foreignKeyName: "event_notes_event_id_event_happened_fkey";
            columns: ["event_id", "event_happened"];
            isOneToOne: false;
            referencedRelation: "events";
            referencedColumns: ["id", "happened"];
          },
        ];`);
    expect(types).toContain(`      events_of_2024: {
        Args: never;
        Returns: {
          channel_id: number | null;
          happened: string;
          id: number;
        }[];
        SetofOptions: {
          from: "*";
          to: "events_2024";
          isOneToOne: false;
          isSetofReturn: true;
        };
      };`);
    expect(await compileWithTypes('typed-partitions', types, TYPED_CLIENT)).toEqual([]);
  }, 120_000);
});

const TYPED_CLIENT = `
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Database, Tables } from './database.types.js';

export async function typed(supabase: SupabaseClient<Database>) {
  const { data } = await supabase.from('event_notes').select('note, events(id, channels(slug))').single();
  const slug: string | undefined = data?.events.channels?.slug;
  const row: Tables<'events_2024'> = { id: 1, happened: '2024-01-01', channel_id: null };
  const rpc = await supabase.rpc('events_of_2024').select('id, happened');
  const days: string[] = (rpc.data ?? []).map((event) => event.happened);
  return { slug, row, days };
}
`;
