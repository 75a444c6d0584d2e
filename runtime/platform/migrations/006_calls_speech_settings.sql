-- Speech-engine settings of the call-analysis API, one row per tenant: which of the deployment's
-- engines its calls use, in which order, and optionally its own OpenAI-compatible endpoint, whose
-- API key is stored sealed (AES-256-GCM, runtime/sealed-value.ts). A tenant without a
-- row uses the deployment's engines.

CREATE TABLE calls_speech_settings (
  tenant_id text PRIMARY KEY,
  engines text[],
  openai_base_url text,
  openai_model text,
  openai_languages text[],
  openai_key_sealed text,
  updated_at timestamptz NOT NULL DEFAULT now()
);
