import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * OpenTelemetry traces, off unless an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). Off, nothing but these checks runs: the SDK is never loaded, no
 * span object is made and no context is entered, so the data API's hot path pays one boolean test per
 * span site. On, the SDK's AsyncLocalStorage context manager carries the active span across awaits.
 */
let enabled = false;

const tracer = trace.getTracer('gantry');

/**
 * Where `env` asks traces to go, as the OTLP specification reads its variables: the traces endpoint as
 * given, else the base endpoint with `/v1/traces`; null when neither is set, or OTEL_SDK_DISABLED=true or
 * OTEL_TRACES_EXPORTER=none turns traces off.
 */
export function tracesEndpoint(env: NodeJS.ProcessEnv): string | null {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return null;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : null;
}

/**
 * Loads the SDK and the OTLP/HTTP (JSON) exporter when `env` asks for traces; the exporter reads the
 * other standard variables (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, OTEL_BSP_*) from the process's
 * environment itself. Returns what flushes and stops it, or null when off.
 */
export async function startTracing(env: NodeJS.ProcessEnv): Promise<(() => Promise<void>) | null> {
  const url = tracesEndpoint(env);
  if (url === null) return null;
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || 'gantry' }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  });
  // Registers the W3C trace-context propagator (traceparent) and the AsyncLocalStorage context manager.
  provider.register();
  enabled = true;
  return async () => {
    enabled = false;
    await provider.shutdown();
  };
}

export function tracingOn(): boolean {
  return enabled;
}

/** The server span of a request, its parent the client's `traceparent` when it sent one. */
export function startServerSpan(name: string, headers: IncomingHttpHeaders, attributes: Attributes): { readonly span: Span; readonly context: Context } {
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

export function runInContext<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}

/** A span under the active one, for work that ends on its own (a statement in a pipeline); null when off. */
export function startSpan(name: string, attributes?: Attributes, kind: SpanKind = SpanKind.INTERNAL): Span | null {
  return enabled ? tracer.startSpan(name, { kind, attributes }) : null;
}

export function failSpan(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Ends `span` when `promise` settles, failed if it rejects; returns `promise`. */
export function endWith<T>(span: Span | null, promise: Promise<T>): Promise<T> {
  if (span !== null) promise.then(() => span.end(), (error: unknown) => {
    failSpan(span, error);
    span.end();
  });
  return promise;
}

/** Runs `fn` in a span under the active one (its children nest under it); just `fn()` when off. */
export function inSpan<T>(name: string, fn: () => Promise<T>, attributes?: Attributes): Promise<T> {
  if (!enabled) return fn();
  return tracer.startActiveSpan(name, { attributes }, (span) => endWith(span, fn()));
}

/** `inSpan` for synchronous work (the token check, the plan). */
export function inSpanSync<T>(name: string, fn: () => T, attributes?: Attributes): T {
  if (!enabled) return fn();
  return tracer.startActiveSpan(name, { attributes }, (span) => {
    try {
      return fn();
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs work that stands apart from any request in a span of its own trace (a project's load, shared by
 * the requests that wait for it), or — given the `traceparent` carrier a request kept (a queued job) —
 * as a child of that request's span in another process or later. Just `fn()` when off.
 */
export function inDetachedSpan<T>(name: string, fn: () => Promise<T>, options: { readonly attributes?: Attributes; readonly carrier?: Readonly<Record<string, string>>; readonly kind?: SpanKind } = {}): Promise<T> {
  if (!enabled) return fn();
  const parent = options.carrier === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, options.carrier);
  const span = tracer.startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, parent);
  return context.with(trace.setSpan(parent, span), () => endWith(span, fn()));
}

/** The active span's `traceparent` to keep with work queued for later ({} when off or none is active). */
export function traceCarrier(): Record<string, string> {
  return injectTraceHeaders({});
}

/** Adds the active span's `traceparent` to an outbound call's headers (a client span when one is active). */
export function injectTraceHeaders(headers: Record<string, string>, ctx: Context = context.active()): Record<string, string> {
  if (enabled) propagation.inject(ctx, headers);
  return headers;
}

export function contextWithSpan(span: Span): Context {
  return trace.setSpan(context.active(), span);
}

export { SpanKind, SpanStatusCode, type Context, type Span };
