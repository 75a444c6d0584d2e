/**
 * The bench's stand-in: the 20-row RLS read written by hand for speed (issue 26's yardstick), so
 * the data API's per-request cost is measured against the least a Node server can do for the
 * same answer. node:http, a cache of verified JWTs, and two pipelined pg connections (each
 * request's whole transaction written at once, requests spread round-robin), running the data
 * API's own transaction: the same BEGIN, the same identity statement with the same values, the
 * same statement text and parameters (STANDIN_SQL, from the bench's buildStatement), COMMIT.
 * Env: PORT, DATABASE_URL (the authenticator), JWT_SECRET, STANDIN_SQL (JSON: { text, values }).
 */
import http from 'node:http';
import { jwtVerify } from 'jose';
import pg from 'pg';
import { identitySql } from '../runtime/db/rls-transaction.js';

const statement = JSON.parse(process.env.STANDIN_SQL ?? '{}') as { text: string; values: unknown[] };
const secret = new TextEncoder().encode(process.env.JWT_SECRET ?? '');
const IDENTITY = identitySql((n) => `$${n}`, { timezone: false, preRequest: null, appSettings: 0 });
const SEARCH_PATH = '"public", "public", "extensions"';

const clients = await Promise.all([0, 1].map(async () => {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL, pipeline: true } as pg.ClientConfig);
  await client.connect();
  return client;
}));
let next = 0;

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

async function read(claims: Record<string, unknown>, req: http.IncomingMessage): Promise<string> {
  const client = clients[next++ % clients.length]!;
  const path = (req.url ?? '/').split('?')[0]!;
  const socket = (client as unknown as { connection: { stream: { cork(): void; uncork(): void } } }).connection.stream;
  socket.cork();
  const queued = [
    client.query('BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY'),
    client.query({
      name: 'standin_identity', text: IDENTITY,
      values: [SEARCH_PATH, String(claims.role), JSON.stringify(claims), req.method, path, JSON.stringify(req.headers), '{}'],
    }),
    client.query<{ body: string }>({ name: 'standin_read', text: statement.text, values: statement.values }),
    client.query('COMMIT'),
  ];
  setImmediate(() => socket.uncork());
  const settled = await Promise.allSettled(queued);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  const rows = (settled[2] as PromiseFulfilledResult<pg.QueryResult<{ body: string }>>).value.rows;
  return rows[0]?.body ?? '[]';
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
      const body = await read(claims, req);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body);
    } catch (error) {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message: (error as Error).message }));
    }
  });
}).listen(Number(process.env.PORT), '127.0.0.1');
