/**
 * The bench's stand-in: the data API's requests written by hand for speed (issue 26's yardstick), so
 * the data API's per-request cost is measured against the least a Node server can do for the
 * same answer. node:http, a cache of verified JWTs, and pipelined pg connections (each request's
 * whole transaction written at once), running the data API's own transaction: the same BEGIN, the
 * same identity statement with the same values, the same statement text and parameters (from the
 * bench's buildStatement), COMMIT.
 * - GET (the 20-row read): STANDIN_SQL as is, on two shared connections, requests spread round-robin.
 * - POST (one row, the write targets' yardstick): STANDIN_WRITE_SQL with the request's body, as a JSON
 *   array, in its body parameter; each transaction on a connection of its own from a pool of
 *   STANDIN_WRITE_CONNECTIONS (50: pgbench's clients), as a commit waits for its WAL flush.
 * Env: PORT, DATABASE_URL (the authenticator), JWT_SECRET, STANDIN_SQL (JSON: { text, values }),
 * STANDIN_WRITE_SQL (JSON: { text, values, bodyParam }), STANDIN_WRITE_CONNECTIONS.
 */
import http from 'node:http';
import { jwtVerify } from 'jose';
import pg from 'pg';
import { identitySql } from '../runtime/db/rls-transaction.js';

interface Statement {
  readonly text: string;
  readonly values: readonly unknown[];
  readonly bodyParam?: number;
}

interface Corkable {
  cork(): void;
  uncork(): void;
}

const readStatement = JSON.parse(process.env.STANDIN_SQL ?? '{}') as Statement;
const writeStatement = JSON.parse(process.env.STANDIN_WRITE_SQL ?? 'null') as Statement | null;
const secret = new TextEncoder().encode(process.env.JWT_SECRET ?? '');
const IDENTITY = identitySql((n) => `$${n}`, { timezone: false, preRequest: null, appSettings: 0 });
const SEARCH_PATH = '"public", "public", "extensions"';

async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL, pipeline: true } as pg.ClientConfig);
  await client.connect();
  return client;
}

const readers = await Promise.all([0, 1].map(connect));
let next = 0;
const writers = writeStatement ? await Promise.all(Array.from({ length: Number(process.env.STANDIN_WRITE_CONNECTIONS ?? 50) }, connect)) : [];
const waitingWriters: ((client: pg.Client) => void)[] = [];

function takeWriter(): Promise<pg.Client> {
  const free = writers.pop();
  return free ? Promise.resolve(free) : new Promise((resolve) => waitingWriters.push(resolve));
}

function giveBackWriter(client: pg.Client): void {
  const waiting = waitingWriters.shift();
  if (waiting) waiting(client);
  else writers.push(client);
}

/** Verified claims by token, until they expire. */
const verified = new Map<string, { claims: Record<string, unknown>; exp: number }>();

async function claimsOf(authorization: string | undefined): Promise<Record<string, unknown> | null> {
  const token = (authorization ?? '').replace(/^Bearer /i, '');
  const cached = verified.get(token);
  if (cached && cached.exp > Date.now() / 1000) return cached.claims;
  try {
    const { payload } = await jwtVerify(token, secret);
    verified.set(token, { claims: payload, exp: Number(payload.exp ?? Infinity) });
    return payload;
  } catch {
    return null;
  }
}

/** BEGIN, identity, `query` and COMMIT in one write; the query's `body` column. */
async function transaction(client: pg.Client, begin: string, query: pg.QueryConfig, claims: Record<string, unknown>, req: http.IncomingMessage): Promise<string> {
  const path = (req.url ?? '/').split('?')[0]!;
  const socket = (client as unknown as { connection: { stream: Corkable } }).connection.stream;
  socket.cork();
  const queued = [
    client.query(begin),
    client.query({
      name: 'standin_identity', text: IDENTITY,
      values: [SEARCH_PATH, String(claims.role), JSON.stringify(claims), req.method, path, JSON.stringify(req.headers), '{}'],
    }),
    client.query<{ body: string }>(query),
    client.query('COMMIT'),
  ];
  setImmediate(() => socket.uncork());
  const settled = await Promise.allSettled(queued);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  const rows = (settled[2] as PromiseFulfilledResult<pg.QueryResult<{ body: string }>>).value.rows;
  return rows[0]?.body ?? '[]';
}

function read(claims: Record<string, unknown>, req: http.IncomingMessage): Promise<string> {
  const client = readers[next++ % readers.length]!;
  return transaction(client, 'BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY', { name: 'standin_read', text: readStatement.text, values: [...readStatement.values] }, claims, req);
}

async function write(statement: Statement, claims: Record<string, unknown>, req: http.IncomingMessage, body: string): Promise<string> {
  const parsed = JSON.parse(body) as unknown;
  const values = [...statement.values];
  values[statement.bodyParam!] = JSON.stringify(Array.isArray(parsed) ? parsed : [parsed]);
  const client = await takeWriter();
  try {
    return await transaction(client, 'BEGIN ISOLATION LEVEL READ COMMITTED', { name: 'standin_write', text: statement.text, values }, claims, req);
  } finally {
    giveBackWriter(client);
  }
}

function bodyOf(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

http.createServer((req, res) => {
  if (req.url === '/health') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    return;
  }
  void claimsOf(req.headers.authorization).then(async (claims) => {
    if (!claims) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"invalid token"}');
      return;
    }
    try {
      if (req.method === 'POST' && writeStatement) {
        const body = await write(writeStatement, claims, req, await bodyOf(req));
        res.writeHead(201, { 'content-type': 'application/json; charset=utf-8' }).end(body);
      } else {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(await read(claims, req));
      }
    } catch (error) {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message: (error as Error).message }));
    }
  });
}).listen(Number(process.env.PORT), '127.0.0.1');
