import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../../helpers/platform.js';

/** `gantry serve` as a user runs it: its own embedded cluster, real ports, signals. */
let home: string;
let port: number;

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = server.address() as { port: number };
      server.close(() => resolve(p));
    });
  });
}

function env(): Record<string, string> {
  return {
    DATABASE_URL: '',
    GANTRY_HOME: home,
    GANTRY_GENERATED_DIR: path.join(home, 'generated'),
    HOST: '127.0.0.1',
    PORT: String(port),
    CALLS_PORT: '0',
    LOG_LEVEL: 'silent',
  };
}

/** A superuser query on the demo database of the running embedded cluster. */
async function queryDemo(sql: string): Promise<unknown[]> {
  const { port: pgPort } = JSON.parse(await fs.readFile(path.join(home, 'pg.json'), 'utf8')) as { port: number };
  const password = (await fs.readFile(path.join(home, 'pg.password'), 'utf8')).trim();
  const client = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'postgres', password, database: 'project_demo' });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

interface Served {
  readonly child: ChildProcess;
  readonly banner: string;
  readonly exited: Promise<number | null>;
}

async function serve(): Promise<Served> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/gantry.mjs'), 'serve'], { cwd: repoRoot, env: { ...process.env, ...env() } });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let output = '';
  const banner = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${output}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('service_key:') && output.endsWith('\n')) {
        clearTimeout(timer);
        resolve(output);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', () => reject(new Error(`serve exited: ${output}`)));
  });
  return { child, banner, exited };
}

beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-serve-'));
  port = await freePort();
});
afterAll(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

describe('gantry serve', () => {
  it('creates the demo project on first start, serves it, and shares its cluster with the CLI', async () => {
    const server = await serve();
    try {
      expect(server.banner).toContain(`base_url:    http://127.0.0.1:${port}`);
      expect(server.banner).toContain(`demo url:    http://127.0.0.1:${port}/v1/demo`);
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);
      const state = JSON.parse(await fs.readFile(path.join(home, 'pg.json'), 'utf8')) as { port: number };
      await queryDemo(`INSERT INTO authors (name) VALUES ('Persisted Person')`);

      const keys = await runCli(['project', 'keys', 'demo', '--json'], env());
      expect(keys.code).toBe(0);
      const demo = JSON.parse(keys.stdout) as { anon_key: string; url: string };
      expect(server.banner).toContain(demo.anon_key);
      expect(JSON.parse(await fs.readFile(path.join(home, 'pg.json'), 'utf8'))).toEqual(state);

      const created = await runCli(['project', 'create', 'live_one', '--json'], env());
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      const { anon_key: anon } = JSON.parse(created.stdout) as { anon_key: string };
      // Served at once: the first request after create already reaches the project's data API.
      const res = await fetch(`http://127.0.0.1:${port}/v1/live_one/rest/v1/nothing`, { headers: { apikey: anon } });
      expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([404, '42P01']);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
    await expect(fs.stat(path.join(home, 'pg.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('keeps projects and rows across a restart', async () => {
    const server = await serve();
    try {
      const list = await runCli(['project', 'list', '--json'], env());
      expect((JSON.parse(list.stdout) as { projects: { ref: string }[] }).projects.map((p) => p.ref)).toEqual(['demo', 'live_one']);
      expect(await queryDemo(`SELECT name FROM authors WHERE name = 'Persisted Person'`)).toEqual([{ name: 'Persisted Person' }]);
    } finally {
      server.child.kill('SIGINT');
    }
    expect(await server.exited).toBe(0);
  });
});
