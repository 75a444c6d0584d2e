import { Router } from 'express';
import { sendJson } from '../http/json-response.js';

/** One dependency of readiness: resolves when it answers. */
export type Probe = () => Promise<unknown>;

export type CheckState = 'ok' | 'unavailable';

export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, CheckState>>;
  /** The host is shutting down: still serving, but asking load balancers to send it nothing new. */
  readonly draining?: boolean;
}

/** The `status` of a readiness answer. */
export function readinessStatus(report: ReadinessReport): 'ok' | 'unavailable' | 'draining' {
  if (report.draining) return 'draining';
  return report.ready ? 'ok' : 'unavailable';
}

/**
 * Readiness that answers not ready, without asking the dependencies, once `draining()` is true: a
 * load balancer takes the host out of its rotation while the host still serves what it is sent.
 */
export function drainableReadiness(readiness: () => Promise<ReadinessReport>, draining: () => boolean): () => Promise<ReadinessReport> {
  return () => (draining() ? Promise.resolve({ ready: false, checks: {}, draining: true }) : readiness());
}

/** A dependency that has not answered in this long counts as unreachable (a hung network, not only a refused one). */
const PROBE_TIMEOUT_MS = 2_000;
/** What a 503 tells load balancers and clients: about the time an embedded PostgreSQL takes to restart. */
const RETRY_AFTER_SECONDS = 1;

function withTimeout(probe: Probe, timeoutMs: number): Promise<CheckState> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('unavailable'), timeoutMs);
    probe().then(
      () => resolve('ok'),
      () => resolve('unavailable'),
    ).finally(() => clearTimeout(timer));
  });
}

/**
 * Readiness from the probes, run together; probes arriving while a check runs share
 * it, so frequent health checks never pile up on a pool that is waiting for PostgreSQL.
 */
export function createReadiness(probes: Readonly<Record<string, Probe>>, timeoutMs = PROBE_TIMEOUT_MS): () => Promise<ReadinessReport> {
  let running: Promise<ReadinessReport> | null = null;
  const check = async (): Promise<ReadinessReport> => {
    const entries = await Promise.all(Object.entries(probes).map(async ([name, probe]) => [name, await withTimeout(probe, timeoutMs)] as const));
    return { ready: entries.every(([, state]) => state === 'ok'), checks: Object.fromEntries(entries) };
  };
  return () => (running ??= check().finally(() => (running = null)));
}

/**
 * `/health`: readiness, 503 with Retry-After while a dependency is unreachable, so a load
 * balancer stops sending traffic; `/health/live`: liveness, 200 while the process runs, so
 * an orchestrator does not restart a process that is only waiting for its database.
 */
export function healthRoutes(readiness: () => Promise<ReadinessReport>, details: () => Readonly<Record<string, unknown>> = () => ({})): Router {
  const router = Router();
  router.get('/health/live', (_req, res) => sendJson(res, 200, { status: 'ok' }));
  router.get('/health', (_req, res, next) => {
    readiness().then((report) => {
      if (!report.ready) res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
      sendJson(res, report.ready ? 200 : 503, { status: readinessStatus(report), checks: report.checks, ...details() });
    }, next);
  });
  return router;
}
