-- OAuth/OIDC sign-in: a user's identities at providers, and flow_state for the provider redirect
-- (state = the flow's id; user, provider tokens and auth code set at the callback). The e-mail
-- identity stays implied by the user row (app_metadata.providers lists "email").
CREATE TABLE IF NOT EXISTS auth.identities (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- The user's id at the provider (the `sub` claim).
  provider_id text NOT NULL,
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  identity_data jsonb NOT NULL DEFAULT '{}',
  provider text NOT NULL,
  email text GENERATED ALWAYS AS (lower(identity_data ->> 'email')) STORED,
  last_sign_in_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider_id, provider)
);
CREATE INDEX IF NOT EXISTS identities_user_id_idx ON auth.identities (user_id);
CREATE INDEX IF NOT EXISTS identities_email_idx ON auth.identities (email);

ALTER TABLE auth.flow_state
  ALTER COLUMN user_id DROP NOT NULL,
  ALTER COLUMN code_challenge DROP NOT NULL,
  ALTER COLUMN code_challenge_method DROP NOT NULL,
  ADD COLUMN IF NOT EXISTS provider_type text,
  ADD COLUMN IF NOT EXISTS provider_access_token text,
  ADD COLUMN IF NOT EXISTS provider_refresh_token text,
  ADD COLUMN IF NOT EXISTS referrer text,
  ADD COLUMN IF NOT EXISTS linking_target_id uuid REFERENCES auth.users (id) ON DELETE CASCADE;

-- A user's provider identities as the user object lists them, oldest first; null when none.
CREATE OR REPLACE FUNCTION auth.user_identities(user_id uuid) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_agg(to_jsonb(i) ORDER BY i.created_at, i.id) FROM auth.identities i WHERE i.user_id = $1
$$;
REVOKE EXECUTE ON FUNCTION auth.user_identities(uuid) FROM PUBLIC;
