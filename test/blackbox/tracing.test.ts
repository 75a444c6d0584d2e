import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cliOk, installation, jsonObject, removeInstallation, serve, type Installation, type Server } from '../helpers/serve-process.js';
import { callsEnv, dropQueueSchema } from '../helpers/calls/harness.js';
import { uniqueRef } from '../helpers/blackbox-projects.js';

/**
 * `gantry serve` with OTEL_EXPORTER_OTLP_ENDPOINT, as its own process, exporting to a local OTLP/HTTP
 * collector stand-in (the exporter's JSON encoding): one data API request sent with a `traceparent`
 * comes back as the server span under the client's span, with the token check, plan, connection wait,
 * transaction and statements beneath it, and no bind value anywhere; a project's load is a trace of its
 * own; a call-analysis request is a server span and the job it queues a consumer span beneath it.
 */

vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });

interface OtlpValue { stringValue?: string; intValue?: string | number; boolValue?: boolean }
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: OtlpValue }[];
}

const received: OtlpSpan[] = [];
const bodies: string[] = [];
let collector: http.Server;
let inst: Installation;
let server: Server | null = null;
const calls = callsEnv();

beforeAll(async () => {
  collector = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (req.url === '/recording.wav') {
        res.writeHead(404).end();
        return;
      }
      if (req.url === '/v1/traces' && req.headers['content-type'] === 'application/json') {
        bodies.push(text);
        const payload = JSON.parse(text) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
        for (const resource of payload.resourceSpans) for (const scope of resource.scopeSpans) received.push(...scope.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const { port } = collector.address() as AddressInfo;
  inst = await installation({ env: { ...calls, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_SERVICE_NAME: 'gantry-test' } });
  server = await serve(inst);
});
afterAll(async () => {
  if (server) expect(await server.stop(), server.output()).toBe(0);
  await removeInstallation(inst);
  await dropQueueSchema(calls.CALLS_QUEUE_SCHEMA!);
  collector.close();
});

const attribute = (span: OtlpSpan, key: string): unknown => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value && (value.stringValue ?? value.intValue ?? value.boolValue);
};

describe('traces', () => {
  it('exports a data API request as spans under the client\'s traceparent, statements without values', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const clientSpan = '00f067aa0ba902b7';
    const response = await fetch(`${inst.baseUrl}/v1/demo/rest/v1/posts?select=id&id=eq.424242`, {
      headers: { apikey: server!.anonKey, traceparent: `00-${traceId}-${clientSpan}-01` },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);

    await vi.waitFor(() => expect(received.filter((s) => s.traceId === traceId).map((s) => s.name)).toContain('GET /v1/:ref/rest/v1/:relation'), { timeout: 10_000, interval: 50 });
    const spans = received.filter((s) => s.traceId === traceId);
    const named = (name: string) => spans.filter((s) => s.name === name);
    const [request] = named('GET /v1/:ref/rest/v1/:relation');
    expect(request).toMatchObject({ parentSpanId: clientSpan, kind: 2 });
    expect([attribute(request!, 'http.route'), attribute(request!, 'http.response.status_code'), attribute(request!, 'gantry.ref')])
      .toEqual(['/v1/:ref/rest/v1/:relation', 200, 'demo']);
    expect(spans.filter((s) => s.parentSpanId === request!.spanId).map((s) => s.name).sort()).toEqual(['plan', 'token check', 'transaction']);
    const [transaction] = named('transaction');
    expect(spans.filter((s) => s.parentSpanId === transaction!.spanId).map((s) => s.name).sort())
      .toEqual(['BEGIN', 'COMMIT', 'SELECT', 'WITH', 'connection wait']);
    // The identity statement and the request's own: parameterised text only.
    expect(String(attribute(named('SELECT')[0]!, 'db.statement'))).toMatch(/^SELECT FROM \(SELECT set_config\('search_path', \$1, true\)/);
    expect(String(attribute(named('WITH')[0]!, 'db.statement'))).toMatch(/"posts".*"id" = \$1/s);
    expect(spans).toHaveLength(9);

    // No bind value, token or key anywhere in what the collector received.
    const exported = bodies.join('\n');
    expect(exported).not.toContain('424242');
    expect(exported).not.toContain(server!.anonKey);
    expect(exported).not.toContain(server!.anonKey.split('.')[1]!);
  });

  it('exports a project load as a trace of its own: the schema check and the server build beneath it', async () => {
    // The request above loaded the demo project.
    await vi.waitFor(() => expect(received.map((s) => s.name)).toContain('project load'), { timeout: 10_000, interval: 50 });
    const loads = received.filter((s) => s.name === 'project load' && attribute(s, 'gantry.ref') === 'demo');
    const [load] = loads;
    expect(load!.parentSpanId ?? '').toBe('');
    expect(received.filter((s) => s.parentSpanId === load!.spanId).map((s) => s.name).sort()).toEqual(['schema check', 'server build']);
  });

  it("exports a call-analysis request as a server span, and the analysis job it queued as a consumer span beneath it", async () => {
    const key = String(jsonObject(await cliOk(['calls', 'key', 'create', '--tenant', uniqueRef('traces').replaceAll('_', '-'), '--json'], inst.env)).key);
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const { port } = collector.address() as AddressInfo;
    const submitted = await fetch(`${inst.apiUrl}/v1/calls/analyze`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', traceparent: `00-${traceId}-b7ad6b7169203331-01` },
      body: JSON.stringify({ audio_url: `http://127.0.0.1:${port}/recording.wav`, language: 'en-GB', operator_id: 'op-1' }),
    });
    expect(submitted.status, await submitted.clone().text()).toBe(202);
    await vi.waitFor(() => expect(received.filter((s) => s.traceId === traceId).map((s) => s.name)).toContain('job calls-analyze'), { timeout: 30_000, interval: 100 });
    const spans = received.filter((s) => s.traceId === traceId);
    const [request] = spans.filter((s) => s.name === 'POST /v1/calls/analyze');
    expect(request).toMatchObject({ parentSpanId: 'b7ad6b7169203331', kind: 2 });
    expect(attribute(request!, 'http.response.status_code')).toBe(202);
    const [job] = spans.filter((s) => s.name === 'job calls-analyze');
    expect(job).toMatchObject({ parentSpanId: request!.spanId, kind: 5 });
    expect(attribute(job!, 'messaging.destination.name')).toBe('calls-analyze');
    expect(bodies.join('\n')).not.toContain(key);
  });
});
