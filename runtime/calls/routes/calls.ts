import { createHash, randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { requireScope } from '../auth.js';
import { readJson } from '../body.js';
import { callResource, type CallRow } from '../call-resource.js';
import type { CallsContext } from '../context.js';
import { inTransaction } from '../../db/transaction.js';
import { CallsApiError, notFound, validationError } from '../errors.js';
import { findIdempotencyRecord, recordIdempotencyKey, tryLockIdempotencyKey } from '../idempotency.js';
import { parsePublicId } from '../ids.js';
import { ANALYZE_QUEUE } from '../queue.js';
import { parseAnalyzeRequest, type AnalyzeRequest } from '../analyze-request.js';
import { decodeCursor, encodeCursor, isValidIdempotencyKey, parseListQuery } from '../validation.js';
import { sendJson } from '../../http/json-response.js';
import { principalOf } from './principal.js';

function requestHash(request: AnalyzeRequest): string {
  // Options join the hashed fields only when given, so keys recorded before they existed still match.
  const fields = [request.audio_url, request.language, request.operator_id, ...(request.insight_options ? [request.insight_options] : [])];
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

function idempotencyKeyOf(req: Request): string | null {
  const key = req.headers['idempotency-key'];
  if (key === undefined) return null;
  if (typeof key !== 'string' || !isValidIdempotencyKey(key)) {
    throw validationError([{ field: 'Idempotency-Key', code: 'invalid_idempotency_key', message: 'Idempotency-Key must be 1-255 printable ASCII characters' }]);
  }
  return key;
}

function sendAccepted(res: Response, row: CallRow, replayed: boolean): void {
  const resource = callResource(row);
  res.setHeader('Location', `/v1/calls/${resource.id}`);
  if (replayed) res.setHeader('Idempotent-Replayed', 'true');
  sendJson(res, 202, resource);
}

export function callsRouter(ctx: CallsContext): Router {
  const router = Router();

  router.post('/calls/analyze', async (req, res) => {
    const principal = principalOf(res);
    await requireScope(ctx, req, principal, 'calls:write');
    const idempotencyKey = idempotencyKeyOf(req);
    const parsed = parseAnalyzeRequest(await readJson(req), { allowPrivate: ctx.settings.allowPrivateUrls, allowCidrs: ctx.settings.allowCidrs });
    if (!parsed.ok) throw validationError(parsed.errors);
    const hash = requestHash(parsed.value);
    const { row, replayed } = await inTransaction(ctx.pool, async (client) => {
      const now = ctx.now();
      if (idempotencyKey !== null) {
        if (!(await tryLockIdempotencyKey(client, principal.tenantId, idempotencyKey))) {
          throw new CallsApiError(409, 'idempotency_key_in_use', 'a request with this Idempotency-Key is still being processed; retry later');
        }
        const record = await findIdempotencyRecord(client, principal.tenantId, idempotencyKey, now);
        if (record) {
          if (record.requestHash !== hash) {
            throw new CallsApiError(422, 'idempotency_key_reused', 'this Idempotency-Key was used with a different request body');
          }
          const { rows } = await client.query<CallRow>('SELECT * FROM calls WHERE id = $1 AND tenant_id = $2', [record.callId, principal.tenantId]);
          return { row: rows[0]!, replayed: true };
        }
      }
      const { rows } = await client.query<CallRow>(
        `INSERT INTO calls (id, tenant_id, audio_url, language, operator_id, insight_options) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
        [randomUUID(), principal.tenantId, parsed.value.audio_url, parsed.value.language, parsed.value.operator_id, parsed.value.insight_options && JSON.stringify(parsed.value.insight_options)],
      );
      const created = rows[0]!;
      if (idempotencyKey !== null) {
        await recordIdempotencyKey(client, { tenantId: principal.tenantId, key: idempotencyKey, requestHash: hash, callId: created.id }, now, ctx.settings.idempotencyWindowSeconds);
      }
      await ctx.queue.enqueueAnalysis(client, created.id);
      return { row: created, replayed: false };
    });
    if (!replayed) ctx.queue.wake(ANALYZE_QUEUE);
    sendAccepted(res, row, replayed);
  });

  router.get('/calls/:id', async (req, res) => {
    const principal = principalOf(res);
    await requireScope(ctx, req, principal, 'calls:read');
    const id = parsePublicId('call', req.params.id!);
    if (!id) throw notFound('call');
    const { rows } = await ctx.pool.query<CallRow>('SELECT * FROM calls WHERE id = $1 AND tenant_id = $2', [id, principal.tenantId]);
    if (!rows[0]) throw notFound('call');
    if (rows[0].status === 'queued' || rows[0].status === 'processing') res.setHeader('Retry-After', '2');
    sendJson(res, 200, callResource(rows[0]));
  });

  router.get('/calls', async (req, res) => {
    const principal = principalOf(res);
    await requireScope(ctx, req, principal, 'calls:read');
    const parsed = parseListQuery(req.query as Record<string, unknown>);
    if (!parsed.ok) throw validationError(parsed.errors);
    const { limit, cursor, status, operatorId } = parsed.value;
    const { rows } = await ctx.pool.query<CallRow>(
      `SELECT * FROM calls
        WHERE tenant_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR operator_id = $3) AND ($4::bigint IS NULL OR seq < $4)
        ORDER BY seq DESC LIMIT $5`,
      [principal.tenantId, status, operatorId, cursor === null ? null : decodeCursor(cursor), limit + 1],
    );
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    sendJson(res, 200, {
      object: 'list',
      data: page.map(callResource),
      has_more: hasMore,
      next_cursor: hasMore ? encodeCursor(page[page.length - 1]!.seq) : null,
    });
  });

  return router;
}
