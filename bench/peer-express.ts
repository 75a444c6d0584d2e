/**
 * The bench's peer: GET /todos?limit=N written the obvious way (shared/research/perf.md's "plain" server):
 * express 5, a pg pool of 10, jose verifying the JWT on every request, and the
 * transaction's four statements awaited one by one (prepared, JSON built by PostgreSQL).
 * Env: PORT, DATABASE_URL (the authenticator), JWT_SECRET.
 */
import express from 'express';
import { jwtVerify } from 'jose';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const secret = new TextEncoder().encode(process.env.JWT_SECRET ?? '');
const app = express();

app.get('/health', (_req, res) => {
  res.json({ ok: true });
});

app.get('/todos', async (req, res) => {
  let claims: Record<string, unknown>;
  try {
    ({ payload: claims } = await jwtVerify((req.headers.authorization ?? '').replace(/^Bearer /i, ''), secret));
  } catch {
    res.status(401).json({ message: 'invalid token' });
    return;
  }
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY');
    await client.query({
      name: 'peer_claims',
      text: "SELECT set_config('role', $1, true), set_config('request.jwt.claims', $2, true)",
      values: [String(claims.role), JSON.stringify(claims)],
    });
    const { rows } = await client.query<{ body: string }>({
      name: 'peer_todos',
      text: "WITH s AS (SELECT * FROM public.todos LIMIT $1) SELECT coalesce(json_agg(s), '[]')::text AS body FROM s",
      values: [Number(req.query.limit ?? 100)],
    });
    await client.query('COMMIT');
    res.type('application/json').send(rows[0]?.body ?? '[]');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    res.status(500).json({ message: (error as Error).message });
  } finally {
    client.release();
  }
});

app.listen(Number(process.env.PORT), '127.0.0.1');
