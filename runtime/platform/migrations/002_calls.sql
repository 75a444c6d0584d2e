-- Call-analysis API (runtime/calls). Every row carries its tenant; every query filters on it.

CREATE TABLE calls_api_keys (
  id text PRIMARY KEY,
  tenant_id text NOT NULL,
  -- First characters of the key, for display; the key itself is never stored.
  prefix text NOT NULL,
  key_hash bytea NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX calls_api_keys_tenant ON calls_api_keys (tenant_id);

CREATE TABLE calls (
  id uuid PRIMARY KEY,
  -- Ordering and cursor of the list endpoint: strictly increasing in insertion order.
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  tenant_id text NOT NULL,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'processing', 'completed', 'failed')),
  audio_url text NOT NULL,
  language text NOT NULL,
  operator_id text NOT NULL,
  idempotency_key text,
  request_hash text,
  attempts integer NOT NULL DEFAULT 0,
  error jsonb,
  result jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  completed_at timestamptz,
  UNIQUE (tenant_id, idempotency_key)
);
CREATE INDEX calls_tenant_seq ON calls (tenant_id, seq DESC);
CREATE INDEX calls_tenant_status_seq ON calls (tenant_id, status, seq DESC);
CREATE INDEX calls_tenant_operator_seq ON calls (tenant_id, operator_id, seq DESC);

-- Fixed one-minute windows per tenant; old windows are deleted when a new one opens.
CREATE TABLE calls_rate_windows (
  tenant_id text NOT NULL,
  window_start timestamptz NOT NULL,
  hits integer NOT NULL,
  PRIMARY KEY (tenant_id, window_start)
);

-- At most one access.denied event per tenant, subject and reason per minute.
CREATE TABLE calls_event_throttle (
  tenant_id text NOT NULL,
  throttle_key text NOT NULL,
  window_start timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, throttle_key, window_start)
);

CREATE TABLE calls_attendance_operators (
  tenant_id text NOT NULL,
  operator_id text NOT NULL,
  active boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, operator_id)
);

CREATE TABLE calls_attendance_check_ins (
  id uuid PRIMARY KEY,
  tenant_id text NOT NULL,
  operator_id text NOT NULL,
  source text NOT NULL,
  site_id text,
  occurred_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX calls_attendance_check_ins_tenant ON calls_attendance_check_ins (tenant_id, operator_id);

CREATE TABLE calls_webhook_endpoints (
  id uuid PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  tenant_id text NOT NULL,
  url text NOT NULL,
  events text[] NOT NULL,
  secret text NOT NULL,
  -- During a rotation the previous secret co-signs until it expires.
  previous_secret text,
  previous_secret_expires_at timestamptz,
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX calls_webhook_endpoints_tenant ON calls_webhook_endpoints (tenant_id) WHERE deleted_at IS NULL;

-- The outbox: one message per event, one delivery per subscribed endpoint, one attempt row per POST.
CREATE TABLE calls_webhook_messages (
  id text PRIMARY KEY,
  tenant_id text NOT NULL,
  type text NOT NULL,
  payload text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE calls_webhook_deliveries (
  id uuid PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  message_id text NOT NULL REFERENCES calls_webhook_messages (id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL REFERENCES calls_webhook_endpoints (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  last_status_code integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX calls_webhook_deliveries_endpoint ON calls_webhook_deliveries (endpoint_id, seq DESC);

CREATE TABLE calls_webhook_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id uuid NOT NULL REFERENCES calls_webhook_deliveries (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  status_code integer,
  error text,
  response_snippet text
);
CREATE INDEX calls_webhook_attempts_delivery ON calls_webhook_attempts (delivery_id, attempt);
