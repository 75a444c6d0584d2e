-- Idempotency-Key records of the call-analysis API move out of `calls` into their own table so
-- they can expire: each is kept for CALLS_IDEMPOTENCY_WINDOW_SECONDS (default 24 h, as Stripe),
-- after which the same key is a fresh request, and the maintenance sweep deletes the row.

CREATE TABLE calls_idempotency_keys (
  tenant_id text NOT NULL,
  idempotency_key text NOT NULL,
  -- SHA-256 of the canonical request: a replay must carry the same one.
  request_hash text NOT NULL,
  call_id uuid NOT NULL REFERENCES calls (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, idempotency_key)
);
CREATE INDEX calls_idempotency_keys_expires ON calls_idempotency_keys (expires_at);
CREATE INDEX calls_idempotency_keys_call ON calls_idempotency_keys (call_id);

INSERT INTO calls_idempotency_keys (tenant_id, idempotency_key, request_hash, call_id, created_at, expires_at)
SELECT tenant_id, idempotency_key, request_hash, id, created_at, created_at + interval '24 hours'
  FROM calls WHERE idempotency_key IS NOT NULL AND request_hash IS NOT NULL;

ALTER TABLE calls DROP COLUMN idempotency_key, DROP COLUMN request_hash;
