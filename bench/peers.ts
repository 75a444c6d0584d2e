/**
 * The servers the bench measures our data API against, in the same rounds and on the same
 * project database, JWT secret and RLS policies: a plain express + pg + jose server
 * (bench/peer-express.ts), PostGraphile v5 and Platformatic's sql-openapi (the team's peers in
 * shared/bench/peers, run unmodified under Node 22 and configured through their environment).
 * Each peer names the requests it can serve that are equivalent to one of our scenarios and
 * how to read the served rows out of its answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { ensureNode22, ensurePeerDir } from './peer-install.js';
import { at, entryKeys, projectTaskKeys, sameRows, todoKeys, withRelayPrimaryKeys } from './served-rows.js';

export type PeerName = 'standin' | 'express' | 'postgraphile' | 'platformatic';
export const PEER_NAMES: readonly PeerName[] = ['standin', 'express', 'postgraphile', 'platformatic'];

/** Our scenarios a peer can have an equivalent of. */
export type ScenarioKey = 'read20' | 'read20hooked' | 'embed' | 'computed' | 'post' | 'patch' | 'patchspread' | 'bulk' | 'upsert' | 'upsertspread' | 'rpc';

export interface PeerRequest {
  readonly scenario: ScenarioKey;
  /** What the peer is asked, for the report. */
  readonly what: string;
  readonly method: 'GET' | 'POST';
  /** The status a served request answers. */
  readonly status: 200 | 201;
  readonly path: string;
  readonly body?: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The served rows as keys (bench/served-rows.ts), null when the answer has another shape. */
  readonly rows: (body: unknown) => readonly string[] | null;
}

export interface PeerContext {
  readonly repoRoot: string;
  /** Where Node 22 and the peers' node_modules are installed (gitignored). */
  readonly cacheDir: string;
  /** shared/bench/peers. */
  readonly peersSourceDir: string;
  readonly databaseName: string;
  /** The data API's own login role on the project database (NOINHERIT authenticator). */
  readonly authenticatorUrl: string;
  /** A superuser on the project database, for Platformatic's setup.sql. */
  readonly superuserUrl: string;
  readonly jwtSecret: string;
  readonly port: number;
  /** The data API's statement for the 20-row read (the stand-in runs it as is). */
  readonly read20: { readonly text: string; readonly values: readonly unknown[] };
  /** The data API's statement for the one-row POST (the stand-in puts each request's body at `bodyParam`). */
  readonly post: { readonly text: string; readonly values: readonly unknown[]; readonly bodyParam?: number };
}

interface Launch {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

export interface PeerSpec {
  readonly name: PeerName;
  readonly label: string;
  readonly requests: readonly PeerRequest[];
  /** Installs what the peer needs and says how to start it. */
  readonly prepare: (ctx: PeerContext) => Promise<Launch>;
}

export class PeerStartError extends Error {
  readonly code = 'peer_start_failed';
}

const JSON_HEADERS = { 'content-type': 'application/json' };

function graphql(query: string): string {
  return JSON.stringify({ query });
}

function pgEnv(url: string): Record<string, string> {
  const u = new URL(url);
  return {
    PGHOST: u.hostname,
    PGPORT: u.port || '5432',
    PGUSER: decodeURIComponent(u.username),
    PGPASSWORD: decodeURIComponent(u.password),
    PGDATABASE: decodeURIComponent(u.pathname.slice(1)),
  };
}

/**
 * Platformatic's setup.sql as shipped (a login role that inherits `authenticated`, since its
 * introspection sees nothing as a NOINHERIT role), pointed at the project database instead of
 * `bench`, then given a random password so no known password stays on the cluster.
 */
async function platformaticSetup(dir: string, ctx: PeerContext): Promise<string> {
  const sql = await fs.readFile(path.join(dir, 'setup.sql'), 'utf8');
  const client = new pg.Client(ctx.superuserUrl);
  await client.connect();
  try {
    if (!/on database bench\b/i.test(sql)) throw new PeerStartError(`${path.join(dir, 'setup.sql')} no longer grants "on database bench"; adapt bench/peers.ts`);
    await client.query(sql.replace(/on database bench\b/gi, `on database ${client.escapeIdentifier(ctx.databaseName)}`));
    const password = randomBytes(18).toString('base64url');
    await client.query(`ALTER ROLE plt_authenticator PASSWORD ${client.escapeLiteral(password)}`);
    const url = new URL(ctx.authenticatorUrl);
    url.username = 'plt_authenticator';
    url.password = password;
    return url.toString();
  } finally {
    await client.end();
  }
}

// The queries of shared/bench/scenarios/graphql.json, so the figures compare with shared/research/perf.md's.
const TODOS_QUERY = '{ allTodos(first: 20) { nodes { id owner title done priority createdAt } } }';
const PROJECTS_QUERY = '{ allProjects(first: 10) { nodes { id name tasksByProjectId { nodes { id title done } } } } }';

const READ20: PeerRequest = { scenario: 'read20', what: 'GET /todos?limit=20', method: 'GET', status: 200, path: '/todos?limit=20', headers: {}, rows: todoKeys };
const POST_ONE: PeerRequest = {
  scenario: 'post', what: 'POST /entries', method: 'POST', status: 201, path: '/entries', body: '{"title":"bench"}', headers: JSON_HEADERS, rows: entryKeys,
};

/** A peer of this repository's bench/, run with tsx on this Node. */
function benchServer(name: PeerName, label: string, file: string, requests: readonly PeerRequest[], env: (ctx: PeerContext) => Record<string, string> = () => ({})): PeerSpec {
  return {
    name,
    label,
    requests,
    prepare: async (ctx) => ({
      command: process.execPath,
      args: ['--import', 'tsx', path.join(ctx.repoRoot, 'bench', file)],
      cwd: ctx.repoRoot,
      env: { PORT: String(ctx.port), DATABASE_URL: ctx.authenticatorUrl, JWT_SECRET: ctx.jwtSecret, ...env(ctx) },
    }),
  };
}

export const PEERS: readonly PeerSpec[] = [
  benchServer('standin', 'hand-written node:http + pg, JWT cache, the data API\'s own transaction written at once: reads on 2 shared connections, '
    + 'each POST on a connection of its own from 50 (Node 20)', 'stand-in.ts', [READ20, POST_ONE],
    (ctx) => ({ STANDIN_SQL: JSON.stringify(ctx.read20), STANDIN_WRITE_SQL: JSON.stringify(ctx.post) })),
  benchServer('express', 'express 5 + pg pool 10 + jose, 4 awaited round trips (Node 20)', 'peer-express.ts', [READ20]),
  {
    name: 'postgraphile',
    label: 'PostGraphile v5, amber preset, grafserv/node, pool 10 (Node 22)',
    requests: [
      {
        scenario: 'read20', what: 'allTodos(first: 20)', method: 'POST', status: 200, path: '/graphql', body: graphql(TODOS_QUERY), headers: JSON_HEADERS,
        rows: (body) => todoKeys(withRelayPrimaryKeys(at(body, ['data', 'allTodos', 'nodes']))),
      },
      {
        scenario: 'embed', what: 'allProjects(first: 10) { tasksByProjectId }', method: 'POST', status: 200, path: '/graphql', body: graphql(PROJECTS_QUERY), headers: JSON_HEADERS,
        rows: (body) => projectTaskKeys(
          withRelayPrimaryKeys(at(body, ['data', 'allProjects', 'nodes'])),
          (p) => withRelayPrimaryKeys(at(p, ['tasksByProjectId', 'nodes'])),
        ),
      },
    ],
    prepare: async (ctx) => {
      const node = await ensureNode22(ctx.cacheDir);
      const dir = await ensurePeerDir(ctx.cacheDir, ctx.peersSourceDir, 'postgraphile');
      return {
        command: node, args: [path.join(dir, 'server.mjs')], cwd: dir,
        env: { PORT: String(ctx.port), POOL: '10', JWT_SECRET: ctx.jwtSecret, ...pgEnv(ctx.authenticatorUrl) },
      };
    },
  },
  {
    name: 'platformatic',
    label: 'Platformatic sql-openapi 3 on fastify 5, RLS by an entity hook, pool 10 (Node 22)',
    // Its REST API has no embedding of a to-many relation in a list, so no embed twin.
    requests: [READ20],
    prepare: async (ctx) => {
      const node = await ensureNode22(ctx.cacheDir);
      const dir = await ensurePeerDir(ctx.cacheDir, ctx.peersSourceDir, 'platformatic');
      const databaseUrl = await platformaticSetup(dir, ctx);
      return {
        command: node, args: [path.join(dir, 'server.mjs')], cwd: dir,
        env: { PORT: String(ctx.port), POOL: '10', JWT_SECRET: ctx.jwtSecret, DATABASE_URL: databaseUrl },
      };
    },
  },
];

/** `--peers`: "all", "none", or a comma list of peer names. */
export function selectPeers(option: string): readonly PeerSpec[] {
  if (option === 'none') return [];
  const names = option === 'all' ? PEER_NAMES : option.split(',').map((n) => n.trim()).filter((n) => n !== '');
  for (const name of names) {
    if (!PEER_NAMES.includes(name as PeerName)) throw new Error(`--peers: unknown peer "${name}" (known: ${PEER_NAMES.join(', ')}, all, none)`);
  }
  return PEERS.filter((p) => names.includes(p.name));
}

export interface RunningPeer {
  readonly spec: PeerSpec;
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the peer and waits until GET /health answers 200. */
export async function startPeer(spec: PeerSpec, ctx: PeerContext): Promise<RunningPeer> {
  const launch = await spec.prepare(ctx);
  const child = spawn(launch.command, [...launch.args], {
    cwd: launch.cwd, env: { ...process.env, ...launch.env }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-3000);
  });
  const url = `http://127.0.0.1:${ctx.port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const until = Date.now() + 90_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new PeerStartError(`${spec.name} exited with ${child.exitCode}:\n${stderr.trim()}`);
    if (await fetch(`${url}/health`).then((r) => r.ok, () => false)) return { spec, url, child, stop };
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new PeerStartError(`${spec.name} did not answer GET /health within 90 s:\n${stderr.trim()}`);
}

/** Null when the peer answers `request` with exactly the rows our API served; else why not. */
export async function preflightPeer(peer: RunningPeer, request: PeerRequest, token: string, expected: readonly string[]): Promise<string | null> {
  const res = await fetch(`${peer.url}${request.path}`, { method: request.method, headers: { authorization: `Bearer ${token}`, ...request.headers }, body: request.body });
  const text = await res.text();
  if (res.status !== request.status) return `answered ${res.status}: ${text.slice(0, 300)}`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `answered something other than JSON: ${text.slice(0, 300)}`;
  }
  const rows = request.rows(body);
  if (!sameRows(expected, rows)) {
    return `served ${rows ? `${rows.length} rows` : 'no rows'} that are not the API's ${expected.length}: ${text.slice(0, 300)}`;
  }
  console.log(`preflight: ${peer.spec.name} ${request.what} serves the API's ${expected.length} rows`);
  return null;
}
