import client from 'prom-client';

/**
 * The process's Prometheus metrics, served on the admin listener (ADMIN_PORT). Labels are bounded:
 * `ref` (projects that exist), `api`, `status_class`, `kind`, `outcome`, `queue`, `reason` — never a
 * path, a user id or a tenant. docs/operations.md lists every metric.
 */
export const registry = new client.Registry();

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const requests = new client.Counter({ name: 'gantry_http_requests_total', help: 'Requests answered, by project, API and status class', labelNames: ['ref', 'api', 'status_class'], registers: [registry] });
const latency = new client.Histogram({ name: 'gantry_http_request_duration_seconds', help: 'Time from the request to the end of its answer', labelNames: ['ref', 'api'], buckets: LATENCY_BUCKETS, registers: [registry] });
const transactions = new client.Counter({ name: 'gantry_rest_transactions_total', help: 'Data API requests by kind (read: GET/HEAD, write: POST/PATCH/PUT/DELETE, rpc: /rpc/)', labelNames: ['ref', 'kind'], registers: [registry] });
const loads = new client.Counter({ name: 'gantry_project_loads_total', help: 'Projects loaded or reloaded (kind: load, reload)', labelNames: ['ref', 'kind'], registers: [registry] });
const unloads = new client.Counter({ name: 'gantry_project_unloads_total', help: 'Projects unloaded, by reason (idle, budget, dropped)', labelNames: ['reason'], registers: [registry] });
const generation = new client.Histogram({ name: 'gantry_schema_check_seconds', help: 'Time to bring a project\'s code in line with its schema on load (introspected: whether it generated)', labelNames: ['introspected'], buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: [registry] });
const extensionFailures = new client.Counter({ name: 'gantry_extension_load_failures_total', help: 'Extensions that failed to load', labelNames: ['ref'], registers: [registry] });
const authEvents = new client.Counter({ name: 'gantry_auth_sign_ins_total', help: 'Token grants by kind (password, refresh_token, pkce, id_token) and outcome (success, failure)', labelNames: ['ref', 'kind', 'outcome'], registers: [registry] });
const rateLimited = new client.Counter({ name: 'gantry_auth_rate_limited_total', help: 'Auth requests refused by a rate limit, by bucket', labelNames: ['ref', 'kind'], registers: [registry] });
const jobDuration = new client.Histogram({ name: 'gantry_calls_job_duration_seconds', help: 'Call-analysis job run time by queue', labelNames: ['queue'], buckets: [0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300], registers: [registry] });
const webhookAttempts = new client.Counter({ name: 'gantry_calls_webhook_attempts_total', help: 'Webhook POSTs by outcome (succeeded, failed, gone)', labelNames: ['outcome'], registers: [registry] });

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/** The children of one project's API, bound once: a request's count is then an array index and an add. */
interface ApiSeries {
  readonly byClass: readonly client.Counter.Internal[];
  readonly latency: client.Histogram.Internal<string>;
  readonly read: client.Counter.Internal | null;
  readonly write: client.Counter.Internal | null;
  readonly rpc: client.Counter.Internal | null;
}

const series = new Map<string, ApiSeries>();

function seriesOf(api: string, ref: string): ApiSeries {
  const key = `${api}\0${ref}`;
  let found = series.get(key);
  if (found === undefined) {
    // A request for a project that does not exist ran no transaction.
    const rest = api === 'rest' && ref !== '';
    found = {
      byClass: STATUS_CLASSES.map((status_class) => requests.labels({ ref, api, status_class })),
      latency: latency.labels({ ref, api }),
      read: rest ? transactions.labels({ ref, kind: 'read' }) : null,
      write: rest ? transactions.labels({ ref, kind: 'write' }) : null,
      rpc: rest ? transactions.labels({ ref, kind: 'rpc' }) : null,
    };
    series.set(key, found);
  }
  return found;
}

/** One answered request; `rpc` for the data API's /rpc/ routes. */
export function countRequest(api: string, ref: string, method: string | undefined, rpc: boolean, status: number, seconds: number): void {
  const s = seriesOf(api, ref);
  s.byClass[Math.min(Math.max(Math.floor(status / 100), 1), 5) - 1]!.inc();
  s.latency.observe(seconds);
  if (s.read === null) return;
  if (rpc) s.rpc!.inc();
  else if (method === 'GET' || method === 'HEAD') s.read.inc();
  else if (method !== 'OPTIONS') s.write!.inc();
}

/** A project's series go with it (a dropped project must not stay a label forever). */
export function forgetProject(ref: string): void {
  for (const [key, found] of series) {
    if (!key.endsWith(`\0${ref}`)) continue;
    series.delete(key);
    const api = key.slice(0, key.indexOf('\0'));
    for (const status_class of STATUS_CLASSES) requests.remove({ ref, api, status_class });
    latency.remove({ ref, api });
    if (found.read) for (const kind of ['read', 'write', 'rpc']) transactions.remove({ ref, kind });
  }
}

export const metrics = {
  projectLoaded(ref: string, reload: boolean, introspected: boolean, checkSeconds: number): void {
    loads.inc({ ref, kind: reload ? 'reload' : 'load' });
    generation.observe({ introspected: String(introspected) }, checkSeconds);
  },
  projectUnloaded(reason: 'idle' | 'budget' | 'dropped'): void {
    unloads.inc({ reason });
  },
  extensionLoadFailed(ref: string): void {
    extensionFailures.inc({ ref });
  },
  signIn(ref: string, kind: string, outcome: 'success' | 'failure'): void {
    authEvents.inc({ ref, kind, outcome });
  },
  rateLimited(ref: string, kind: string): void {
    rateLimited.inc({ ref, kind });
  },
  jobRan(queue: string, seconds: number): void {
    jobDuration.observe({ queue }, seconds);
  },
  webhookAttempt(outcome: string): void {
    webhookAttempts.inc({ outcome });
  },
};

/** A gauge whose value is read at scrape time (pool use, queue depth): nothing is counted on the request path. */
export function gaugeAtScrape(name: string, help: string, labelNames: readonly string[], read: (set: (labels: Record<string, string>, value: number) => void) => Promise<void> | void): client.Gauge {
  const existing = registry.getSingleMetric(name);
  if (existing) registry.removeSingleMetric(name);
  return new client.Gauge({
    name,
    help,
    labelNames: [...labelNames],
    registers: [registry],
    async collect() {
      this.reset();
      await read((labels, value) => this.set(labels, value));
    },
  });
}

let processMetrics = false;

/** The process's own metrics (CPU, memory, event loop lag, handles), once. */
export function collectProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  client.collectDefaultMetrics({ register: registry });
}
