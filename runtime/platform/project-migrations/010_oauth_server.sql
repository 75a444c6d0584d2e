-- Idempotent, as every project migration: a database may already have some of it.
-- The project as an OAuth 2.1 authorization server: its registered clients, the authorization
-- requests of the code flow, the consents users gave, and the sessions a client's tokens belong to.
-- Secrets and codes are stored only as SHA-256 hashes.
CREATE TABLE IF NOT EXISTS auth.oauth_clients (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  client_secret_hash text,
  registration_type text NOT NULL CHECK (registration_type IN ('dynamic', 'manual')),
  client_type text NOT NULL DEFAULT 'confidential' CHECK (client_type IN ('public', 'confidential')),
  token_endpoint_auth_method text NOT NULL CHECK (token_endpoint_auth_method IN ('none', 'client_secret_basic', 'client_secret_post')),
  redirect_uris text[] NOT NULL,
  grant_types text[] NOT NULL,
  client_name text CHECK (char_length(client_name) <= 1024),
  client_uri text CHECK (char_length(client_uri) <= 2048),
  logo_uri text CHECK (char_length(logo_uri) <= 2048),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- Deleting a client keeps its row (GoTrue soft-deletes), so its id is never handed out again.
  deleted_at timestamptz
);

-- One /oauth/authorize request: pending until the user approves or denies it; approval sets
-- the code, which one token request exchanges (the row is deleted then) until expires_at.
CREATE TABLE IF NOT EXISTS auth.oauth_authorizations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  authorization_id text NOT NULL UNIQUE,
  client_id uuid NOT NULL REFERENCES auth.oauth_clients (id) ON DELETE CASCADE,
  user_id uuid REFERENCES auth.users (id) ON DELETE CASCADE,
  redirect_uri text NOT NULL CHECK (char_length(redirect_uri) <= 2048),
  scope text NOT NULL CHECK (char_length(scope) <= 4096),
  state text CHECK (char_length(state) <= 4096),
  resource text CHECK (char_length(resource) <= 2048),
  code_challenge text NOT NULL CHECK (char_length(code_challenge) <= 128),
  code_challenge_method text NOT NULL CHECK (code_challenge_method IN ('s256', 'plain')),
  nonce text CHECK (char_length(nonce) <= 255),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied', 'expired')),
  authorization_code_hash text UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  approved_at timestamptz
);
CREATE INDEX IF NOT EXISTS oauth_authorizations_expires_at_idx ON auth.oauth_authorizations (expires_at);

-- What a user allowed a client; a later request within these scopes is approved without asking.
CREATE TABLE IF NOT EXISTS auth.oauth_consents (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  client_id uuid NOT NULL REFERENCES auth.oauth_clients (id) ON DELETE CASCADE,
  scopes text NOT NULL CHECK (char_length(trim(scopes)) > 0 AND char_length(scopes) <= 2048),
  granted_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  UNIQUE (user_id, client_id)
);

ALTER TABLE auth.sessions
  ADD COLUMN IF NOT EXISTS oauth_client_id uuid REFERENCES auth.oauth_clients (id) ON DELETE CASCADE,
  ADD COLUMN IF NOT EXISTS scopes text;
CREATE INDEX IF NOT EXISTS sessions_oauth_client_id_idx ON auth.sessions (oauth_client_id) WHERE oauth_client_id IS NOT NULL;
