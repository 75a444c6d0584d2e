import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { requireScope } from '../auth.js';
import { readJson } from '../body.js';
import type { CallsContext } from '../context.js';
import { inTransaction } from '../../db/transaction.js';
import { reportDenial } from '../denials.js';
import { CallsApiError, validationError } from '../errors.js';
import { publicId } from '../ids.js';
import { DELIVER_QUEUE } from '../queue.js';
import { parseCheckInRequest, parseOperatorUpdate } from '../validation.js';
import { recordEvent } from '../webhooks/outbox.js';
import { sendJson } from '../../http/json-response.js';
import { principalOf } from './principal.js';

interface CheckInRow {
  id: string;
  operator_id: string;
  source: string;
  site_id: string | null;
  occurred_at: Date;
  created_at: Date;
}

function checkInResource(row: CheckInRow): Record<string, unknown> {
  return {
    id: publicId('chk', row.id),
    object: 'attendance_check_in',
    operator_id: row.operator_id,
    source: row.source,
    site_id: row.site_id,
    occurred_at: row.occurred_at.toISOString(),
    created_at: row.created_at.toISOString(),
  };
}

/**
 * Operators (call-centre agents) checking in for a shift. Operators are known implicitly; a
 * tenant may mark one inactive, and that operator's check-ins are then refused (403) and reported
 * as `access.denied`.
 */
export function attendanceRouter(ctx: CallsContext): Router {
  const router = Router();

  router.use('/attendance', async (req, res, next) => {
    await requireScope(ctx, req, principalOf(res), 'attendance:write');
    next();
  });

  router.put('/attendance/operators/:operatorId', async (req, res) => {
    const parsed = parseOperatorUpdate(await readJson(req));
    if (!parsed.ok) throw validationError(parsed.errors);
    const operatorId = req.params.operatorId!;
    if (operatorId.length > 128) throw validationError([{ field: 'operator_id', code: 'invalid_operator_id', message: 'operator_id must be 1-128 characters' }]);
    await ctx.pool.query(
      `INSERT INTO calls_attendance_operators (tenant_id, operator_id, active) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id, operator_id) DO UPDATE SET active = EXCLUDED.active, updated_at = now()`,
      [principalOf(res).tenantId, operatorId, parsed.value.active],
    );
    sendJson(res, 200, { object: 'attendance_operator', operator_id: operatorId, active: parsed.value.active });
  });

  router.post('/attendance/check-ins', async (req, res) => {
    const parsed = parseCheckInRequest(await readJson(req));
    if (!parsed.ok) throw validationError(parsed.errors);
    const tenantId = principalOf(res).tenantId;
    const { operator_id, source, site_id, occurred_at } = parsed.value;
    const { rows: operator } = await ctx.pool.query<{ active: boolean }>(
      'SELECT active FROM calls_attendance_operators WHERE tenant_id = $1 AND operator_id = $2',
      [tenantId, operator_id],
    );
    if (operator[0] && !operator[0].active) {
      await reportDenial(ctx, tenantId, { type: 'operator', id: operator_id }, 'operator_inactive', req);
      throw new CallsApiError(403, 'operator_inactive', `operator ${operator_id} is inactive and may not check in`);
    }
    const row = await inTransaction(ctx.pool, async (client) => {
      const { rows } = await client.query<CheckInRow>(
        `INSERT INTO calls_attendance_check_ins (id, tenant_id, operator_id, source, site_id, occurred_at)
         VALUES ($1, $2, $3, $4, $5, coalesce($6, now())) RETURNING *`,
        [randomUUID(), tenantId, operator_id, source, site_id, occurred_at],
      );
      await recordEvent(client, ctx.queue, tenantId, 'attendance.check_in.created', checkInResource(rows[0]!));
      return rows[0]!;
    });
    ctx.queue.wake(DELIVER_QUEUE);
    sendJson(res, 201, checkInResource(row));
  });

  return router;
}
