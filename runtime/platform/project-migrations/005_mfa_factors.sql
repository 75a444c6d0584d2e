-- TOTP multi-factor authentication: factors, their challenges, and what a session's aal2 rests on.
-- Idempotent, as every project migration: a database may already have some of it.
CREATE TABLE IF NOT EXISTS auth.mfa_factors (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  friendly_name text NOT NULL DEFAULT '',
  factor_type text NOT NULL CHECK (factor_type = 'totp'),
  status text NOT NULL CHECK (status IN ('unverified', 'verified')),
  -- The TOTP secret under AES-256-GCM with a key derived from the project's JWT secret (kept in the
  -- platform registry, not here), bound to the factor id: a copy of this database alone yields no secret.
  secret_sealed text NOT NULL,
  -- The last TOTP time step accepted: a code (or an older one) is never accepted twice.
  last_used_step bigint,
  last_challenged_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS mfa_factors_user_idx ON auth.mfa_factors (user_id, created_at);
CREATE UNIQUE INDEX IF NOT EXISTS mfa_factors_user_friendly_name_key ON auth.mfa_factors (user_id, friendly_name) WHERE friendly_name <> '';

CREATE TABLE IF NOT EXISTS auth.mfa_challenges (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  factor_id uuid NOT NULL REFERENCES auth.mfa_factors (id) ON DELETE CASCADE,
  ip_address text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  verified_at timestamptz
);
CREATE INDEX IF NOT EXISTS mfa_challenges_factor_idx ON auth.mfa_challenges (factor_id);

-- The factor a session reached aal2 with and when: the access token's `totp` amr entry.
ALTER TABLE auth.sessions ADD COLUMN IF NOT EXISTS factor_id uuid, ADD COLUMN IF NOT EXISTS mfa_verified_at timestamptz;
CREATE INDEX IF NOT EXISTS sessions_factor_idx ON auth.sessions (factor_id) WHERE factor_id IS NOT NULL;

-- A user's factors as the user object lists them (no secret), oldest first; null when none.
CREATE OR REPLACE FUNCTION auth.user_factors(user_id uuid) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_agg(jsonb_build_object(
           'id', f.id, 'created_at', f.created_at, 'updated_at', f.updated_at, 'status', f.status,
           'friendly_name', f.friendly_name, 'factor_type', f.factor_type, 'last_challenged_at', f.last_challenged_at)
         ORDER BY f.created_at, f.id)
  FROM auth.mfa_factors f WHERE f.user_id = $1
$$;
REVOKE EXECUTE ON FUNCTION auth.user_factors(uuid) FROM PUBLIC;
