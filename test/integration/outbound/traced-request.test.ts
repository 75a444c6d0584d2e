import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedRequest } from '../../../runtime/outbound/guarded-request.js';
import { runInContext, startServerSpan, startTracing } from '../../../runtime/tracing.js';

/**
 * An outbound call (auth hook, SMS, webhook: guardedRequest) made while a request is traced: a client
 * span under the request's span, exported to a local OTLP/HTTP collector stand-in, and its
 * `traceparent` sent to the called server so its spans join the same trace.
 */

interface OtlpSpan { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number }

const exported: OtlpSpan[] = [];
const calls: http.IncomingHttpHeaders[] = [];
const servers: http.Server[] = [];

async function listen(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let stopTracing: (() => Promise<void>) | null;
let target: string;

beforeAll(async () => {
  const collector = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
      for (const resource of payload.resourceSpans) for (const scope of resource.scopeSpans) exported.push(...scope.spans);
      res.end('{}');
    });
  });
  target = await listen((req, res) => {
    calls.push(req.headers);
    res.end('ok');
  });
  stopTracing = await startTracing({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector}/v1/traces` });
});
afterAll(() => {
  for (const server of servers) server.close();
});

describe('an outbound call under a traced request', () => {
  it('is a client span of the request\'s trace and sends its traceparent', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const { span, context } = startServerSpan('POST /v1/:ref/auth/v1/*', { traceparent: `00-${traceId}-b7ad6b7169203331-01` }, {});
    const response = await runInContext(context, () => guardedRequest(new URL(`${target}/hook?secret=s3cr3t`), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }, { allowPrivate: true }));
    response.body.resume();
    expect(response.statusCode).toBe(200);
    span.end();
    await stopTracing!();

    const client = exported.find((s) => s.kind === 3);
    expect(client).toMatchObject({ traceId, name: 'POST', parentSpanId: span.spanContext().spanId });
    expect(calls[0]!.traceparent).toBe(`00-${traceId}-${client!.spanId}-01`);
    expect(exported.map((s) => s.name).sort()).toEqual(['POST', 'POST /v1/:ref/auth/v1/*']);
    expect(JSON.stringify(exported)).not.toContain('s3cr3t');
  });
});
