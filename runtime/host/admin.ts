import http from 'node:http';
import { sendJson } from '../http/json-response.js';
import { registry } from '../metrics.js';
import { readinessStatus, type ReadinessReport } from './health.js';
import type { ProjectDirectory } from './project-directory.js';

/** What the admin listener reads to answer. */
export interface AdminSources {
  readonly directory: ProjectDirectory;
  readonly readiness: () => Promise<ReadinessReport>;
  /** Budget permits a project holds now. */
  readonly connectionsOf: (ref: string) => number;
}

function projectStatus(sources: AdminSources, ref: string): Record<string, unknown> {
  const served = sources.directory.get(ref);
  if (!served) return { ref, loaded: false };
  return { ref, loaded: true, schema_version: served.schemaVersion ?? null, fingerprint: served.fingerprint, connections: sources.connectionsOf(ref) };
}

/**
 * The admin listener (ADMIN_PORT, loopback by default): `/metrics` (Prometheus text), `/live` and
 * `/ready` as PostgREST's admin server answers them (200, or 503 while a dependency is unreachable),
 * `/status` (every loaded project) and `/projects/<ref>`. Its own server, so nothing of it is
 * reachable through the public port's `/v1/<ref>`.
 */
export function createAdminServer(sources: AdminSources): http.Server {
  return http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    const answer = async (): Promise<void> => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { message: 'method not allowed' });
      if (path === '/metrics') {
        const text = await registry.metrics();
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Content-Length': Buffer.byteLength(text) });
        res.end(text);
        return;
      }
      if (path === '/live') return sendJson(res, 200, { status: 'ok' });
      if (path === '/ready') {
        const report = await sources.readiness();
        return sendJson(res, report.ready ? 200 : 503, { status: readinessStatus(report), checks: report.checks });
      }
      if (path === '/status') return sendJson(res, 200, { projects: sources.directory.refs().sort().map((ref) => projectStatus(sources, ref)) });
      const project = /^\/projects\/([^/]+)$/.exec(path);
      if (project) {
        const status = projectStatus(sources, decodeURIComponent(project[1]!));
        return sendJson(res, status.loaded ? 200 : 404, status);
      }
      sendJson(res, 404, { message: 'not found' });
    };
    answer().catch(() => {
      if (!res.headersSent) sendJson(res, 500, { message: 'internal error' });
      else res.destroy();
    });
  });
}
