/**
 * Generator benchmark: builds schemas of growing size (tables with foreign keys, views,
 * functions), then times introspection, emission and writing for each, to check the
 * target (500 tables under 10 s on a 2-core machine) and that time grows linearly.
 *
 *   npx tsx bench/gen-500.ts [--sizes 125,250,500]
 *
 * Uses DATABASE_URL when set, else the embedded cluster of GANTRY_HOME.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { emitProject } from '../generator/emit/project.js';
import { introspectProject } from '../generator/introspect/introspect.js';
import { writeGenerated } from '../generator/write.js';
import { loadConfig } from '../runtime/config.js';
import { acquireCluster } from '../runtime/platform/cluster.js';

/** N tables: each references the previous one and one seven back, every fifth has a view and a function. */
export function benchSchema(tables: number): string {
  const statements: string[] = [
    `CREATE TYPE public.bench_state AS ENUM ('new', 'active', 'archived');`,
  ];
  for (let i = 0; i < tables; i++) {
    const refs = [
      i > 0 ? `prev_id bigint REFERENCES public.t${i - 1} (id)` : null,
      i > 7 ? `far_id bigint REFERENCES public.t${i - 7} (id)` : null,
    ].filter((ref): ref is string => ref !== null);
    statements.push(
      `CREATE TABLE public.t${i} (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text NOT NULL, ` +
        `state public.bench_state NOT NULL DEFAULT 'new', tags text[], payload jsonb, amount numeric(12,2), ` +
        `created_at timestamptz NOT NULL DEFAULT now()${refs.map((ref) => `, ${ref}`).join('')});`,
    );
    if (i % 5 === 0) {
      statements.push(`CREATE VIEW public.v${i} AS SELECT id, name${i > 0 ? ', prev_id' : ''} FROM public.t${i};`);
      statements.push(
        `CREATE FUNCTION public.f${i}(p_name text, p_limit integer DEFAULT 10) RETURNS SETOF public.t${i} ` +
          `LANGUAGE sql STABLE AS 'SELECT * FROM public.t${i} WHERE name = p_name LIMIT p_limit';`,
      );
    }
  }
  return statements.join('\n');
}

interface Timing {
  readonly tables: number;
  readonly files: number;
  readonly introspectMs: number;
  readonly emitMs: number;
  readonly writeMs: number;
}

async function measure(adminUrl: string, tables: number): Promise<Timing> {
  const name = `bench_gen_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client(adminUrl);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const client = new pg.Client(url.toString());
  const out = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-bench-'));
  try {
    await client.connect();
    await client.query(benchSchema(tables));
    const t0 = performance.now();
    const model = await introspectProject(client, { schemas: ['public'] });
    const t1 = performance.now();
    const files = emitProject(model, { ref: 'bench' });
    const t2 = performance.now();
    await writeGenerated(out, files, { check: false });
    const t3 = performance.now();
    return { tables, files: files.size, introspectMs: t1 - t0, emitMs: t2 - t1, writeMs: t3 - t2 };
  } finally {
    await client.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    await fs.rm(out, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { sizes: { type: 'string', default: '125,250,500' } } });
  const sizes = values.sizes.split(',').map(Number);
  const cluster = await acquireCluster(loadConfig());
  try {
    const adminUrl = cluster.urlFor('postgres');
    const rows: Timing[] = [];
    for (const tables of sizes) rows.push(await measure(adminUrl, tables));
    console.log('tables  files  introspect  emit     write    total');
    for (const r of rows) {
      const total = r.introspectMs + r.emitMs + r.writeMs;
      console.log(
        [String(r.tables).padStart(6), String(r.files).padStart(6), `${r.introspectMs.toFixed(0)} ms`.padStart(11),
          `${r.emitMs.toFixed(0)} ms`.padStart(8), `${r.writeMs.toFixed(0)} ms`.padStart(8), `${total.toFixed(0)} ms`.padStart(8)].join(' '),
      );
    }
    const first = rows[0];
    const last = rows.at(-1);
    if (first && last && last.tables > first.tables) {
      const perTable = (r: Timing): number => (r.introspectMs + r.emitMs + r.writeMs) / r.tables;
      console.log(`per-table cost: ${perTable(first).toFixed(2)} ms at ${first.tables}, ${perTable(last).toFixed(2)} ms at ${last.tables}`);
    }
  } finally {
    await cluster.release();
  }
}

// Run as a script; bench/gate.ts imports benchSchema without running it.
if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) await main();
