-- Insight settings of the call-analysis API, one row per tenant (keyword lists, required script
-- phrases, PII redaction, match score), applied to each transcript when it completes. A tenant
-- without a row has the defaults.

CREATE TABLE calls_insight_settings (
  tenant_id text PRIMARY KEY,
  settings jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
