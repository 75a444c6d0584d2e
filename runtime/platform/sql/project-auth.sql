-- The auth schema of a project database: users, sessions, refresh tokens, one-time
-- tokens, audit log and rate-limit buckets, plus the helpers policies call.
CREATE SCHEMA auth;

-- Project migrations (runtime/platform/project-migrations) this database has; a new one has all.
CREATE TABLE auth.schema_migrations (
  version text PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE auth.users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  aud text NOT NULL DEFAULT 'authenticated',
  role text NOT NULL DEFAULT 'authenticated',
  -- NULL for an anonymous user until it links an address.
  email text,
  encrypted_password text,
  email_confirmed_at timestamptz,
  confirmation_sent_at timestamptz,
  recovery_sent_at timestamptz,
  -- A requested e-mail change waiting for confirmation (by the new address; with secure e-mail change by the current one too).
  new_email text,
  email_change_sent_at timestamptz,
  -- Secure e-mail change: 1 once one of the two addresses confirmed the pending change.
  email_change_confirm_status smallint NOT NULL DEFAULT 0 CHECK (email_change_confirm_status IN (0, 1)),
  invited_at timestamptz,
  reauthentication_sent_at timestamptz,
  last_sign_in_at timestamptz,
  raw_app_meta_data jsonb NOT NULL DEFAULT '{"provider":"email","providers":["email"]}',
  raw_user_meta_data jsonb NOT NULL DEFAULT '{}',
  banned_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  is_anonymous boolean NOT NULL DEFAULT false,
  -- Phone sign-in (011_phone): E.164 digits without "+", as GoTrue stores them; a requested change waits in phone_change.
  phone text,
  phone_confirmed_at timestamptz,
  phone_change text,
  phone_change_sent_at timestamptz
);
CREATE UNIQUE INDEX users_email_key ON auth.users (lower(email));
CREATE UNIQUE INDEX users_phone_key ON auth.users (phone);
CREATE INDEX users_is_anonymous_idx ON auth.users (is_anonymous);

CREATE TABLE auth.sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  aal text NOT NULL DEFAULT 'aal1',
  -- How the session was opened (password, recovery, otp): the access token's amr claim.
  amr_method text NOT NULL DEFAULT 'password',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  refreshed_at timestamptz,
  revoked_at timestamptz,
  -- logout, password, admin or reuse: a token of a session revoked for reuse is
  -- answered "already used", any other revoked session "no valid session".
  revoked_reason text,
  -- The factor the session reached aal2 with and when: the access token's `totp` amr entry.
  factor_id uuid,
  mfa_verified_at timestamptz,
  -- The factor type of that step, `totp` or `webauthn` (the amr entry; 009_webauthn_factors).
  mfa_method text
);
CREATE INDEX sessions_user_id_idx ON auth.sessions (user_id);
CREATE INDEX sessions_factor_idx ON auth.sessions (factor_id) WHERE factor_id IS NOT NULL;

-- Refresh tokens are stored only as SHA-256 hashes; parent links the rotation chain.
-- child_sealed is the successor token encrypted under a key derived from this
-- (rotated) token, so a reuse inside the grace window can be answered with the
-- current token without ever storing a token in the clear.
CREATE TABLE auth.refresh_tokens (
  id bigserial PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  session_id uuid NOT NULL REFERENCES auth.sessions (id) ON DELETE CASCADE,
  parent_id bigint REFERENCES auth.refresh_tokens (id) ON DELETE SET NULL,
  revoked boolean NOT NULL DEFAULT false,
  revoked_at timestamptz,
  child_sealed text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refresh_tokens_session_idx ON auth.refresh_tokens (session_id);
CREATE INDEX refresh_tokens_parent_idx ON auth.refresh_tokens (parent_id);
CREATE INDEX refresh_tokens_user_idx ON auth.refresh_tokens (user_id);

-- A PKCE flow (RFC 7636) started by sign-up, recover, /otp or an e-mail change: its
-- challenge, then the hash of the auth code the mail link handed out.
CREATE TABLE auth.flow_state (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  authentication_method text NOT NULL,
  code_challenge text NOT NULL,
  code_challenge_method text NOT NULL CHECK (code_challenge_method IN ('s256', 'plain')),
  auth_code_hash text UNIQUE,
  auth_code_issued_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX flow_state_user_idx ON auth.flow_state (user_id);

-- Link tokens of every mail, hashed, single use, expiring; otp_hash is the 6-digit
-- code mailed with the link, hashed with the user id.
CREATE TABLE auth.one_time_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  token_type text NOT NULL CONSTRAINT one_time_tokens_token_type_check
    CHECK (token_type IN ('confirmation', 'recovery', 'email_change', 'email_change_current', 'magiclink', 'reauthentication', 'sms', 'phone_change')),
  token_hash text NOT NULL UNIQUE,
  otp_hash text,
  flow_state_id uuid REFERENCES auth.flow_state (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz
);
CREATE INDEX one_time_tokens_user_idx ON auth.one_time_tokens (user_id, token_type);

CREATE TABLE auth.audit_log_entries (
  id bigserial PRIMARY KEY,
  event text NOT NULL,
  user_id uuid,
  ip_address text,
  payload jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_entries_user_idx ON auth.audit_log_entries (user_id, created_at);

CREATE TABLE auth.rate_limits (
  bucket text NOT NULL,
  key text NOT NULL,
  window_start timestamptz NOT NULL,
  hits integer NOT NULL,
  PRIMARY KEY (bucket, key)
);

-- TOTP factors and their challenges (project migration 005_mfa_factors).
CREATE TABLE auth.mfa_factors (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  friendly_name text NOT NULL DEFAULT '',
  factor_type text NOT NULL CONSTRAINT mfa_factors_factor_type_check CHECK (factor_type IN ('totp', 'webauthn', 'phone')),
  status text NOT NULL CHECK (status IN ('unverified', 'verified')),
  -- The TOTP secret under AES-256-GCM with a key derived from the project's JWT secret (kept in the
  -- platform registry, not here), bound to the factor id: a copy of this database alone yields no secret.
  secret_sealed text,
  -- A WebAuthn factor's credential once verified: id, COSE public key (base64url) and signature counter.
  web_authn_credential jsonb,
  -- A phone factor's number (E.164 digits without "+"; 011_phone).
  phone text,
  -- The last TOTP time step accepted: a code (or an older one) is never accepted twice.
  last_used_step bigint,
  last_challenged_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mfa_factors_user_idx ON auth.mfa_factors (user_id, created_at);
CREATE UNIQUE INDEX mfa_factors_user_friendly_name_key ON auth.mfa_factors (user_id, friendly_name) WHERE friendly_name <> '';

CREATE TABLE auth.mfa_challenges (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  factor_id uuid NOT NULL REFERENCES auth.mfa_factors (id) ON DELETE CASCADE,
  ip_address text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  verified_at timestamptz,
  -- A WebAuthn factor's ceremony: the challenge the response must sign.
  web_authn_session_data jsonb,
  -- A phone factor's challenge: the SMS code, hashed with the challenge id (011_phone).
  otp_hash text
);
CREATE INDEX mfa_challenges_factor_idx ON auth.mfa_challenges (factor_id);

-- Passkeys: WebAuthn credentials and their ceremonies' challenges (project migration 008_passkeys).
CREATE TABLE auth.webauthn_credentials (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  credential_id bytea NOT NULL,
  -- The COSE public key as the authenticator gave it at registration.
  public_key bytea NOT NULL,
  attestation_type text NOT NULL DEFAULT '',
  aaguid uuid,
  -- The authenticator's signature counter last seen: an assertion must move it forward (unless it stays 0).
  sign_count bigint NOT NULL DEFAULT 0,
  transports jsonb NOT NULL DEFAULT '[]'::jsonb,
  backup_eligible boolean NOT NULL DEFAULT false,
  backed_up boolean NOT NULL DEFAULT false,
  friendly_name text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE UNIQUE INDEX webauthn_credentials_credential_id_key ON auth.webauthn_credentials (credential_id);
CREATE INDEX webauthn_credentials_user_id_idx ON auth.webauthn_credentials (user_id);

-- A ceremony's challenge, deleted when used: each is good for one verify, until expires_at.
CREATE TABLE auth.webauthn_challenges (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid REFERENCES auth.users (id) ON DELETE CASCADE,
  challenge_type text NOT NULL CHECK (challenge_type IN ('signup', 'registration', 'authentication')),
  session_data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX webauthn_challenges_user_id_idx ON auth.webauthn_challenges (user_id);
CREATE INDEX webauthn_challenges_expires_at_idx ON auth.webauthn_challenges (expires_at);

-- A user's factors as the user object lists them (no secret), oldest first; null when none.
CREATE FUNCTION auth.user_factors(user_id uuid) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_agg(jsonb_build_object(
           'id', f.id, 'created_at', f.created_at, 'updated_at', f.updated_at, 'status', f.status,
           'friendly_name', f.friendly_name, 'factor_type', f.factor_type, 'phone', f.phone, 'last_challenged_at', f.last_challenged_at)
         ORDER BY f.created_at, f.id)
  FROM auth.mfa_factors f WHERE f.user_id = $1
$$;
REVOKE EXECUTE ON FUNCTION auth.user_factors(uuid) FROM PUBLIC;

-- Identities at OAuth/OIDC providers and flow_state for their redirects (project migration 007_identities).
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
-- the code, which one token request exchanges until expires_at (the row stays, with the session
-- the exchange opened, so a replay is known).
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
  approved_at timestamptz,
  -- Set by the code's exchange: the row stays, so a replayed code revokes this session.
  session_id uuid REFERENCES auth.sessions (id) ON DELETE CASCADE
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

CREATE FUNCTION auth.jwt() RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT coalesce(nullif(current_setting('request.jwt.claims', true), '')::jsonb, '{}'::jsonb)
$$;
CREATE FUNCTION auth.uid() RETURNS uuid LANGUAGE sql STABLE AS $$
  SELECT nullif(auth.jwt() ->> 'sub', '')::uuid
$$;
CREATE FUNCTION auth.role() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT nullif(auth.jwt() ->> 'role', '')
$$;

GRANT USAGE ON SCHEMA auth TO anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION auth.jwt(), auth.uid(), auth.role() TO anon, authenticated, service_role;
