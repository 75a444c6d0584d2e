-- Passkeys: WebAuthn credentials and the challenges of their ceremonies, in GoTrue's table shapes.
-- Idempotent, as every project migration: a database may already have some of it.
CREATE TABLE IF NOT EXISTS auth.webauthn_credentials (
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
CREATE UNIQUE INDEX IF NOT EXISTS webauthn_credentials_credential_id_key ON auth.webauthn_credentials (credential_id);
CREATE INDEX IF NOT EXISTS webauthn_credentials_user_id_idx ON auth.webauthn_credentials (user_id);

-- A ceremony's challenge, deleted when used: each is good for one verify, until expires_at.
CREATE TABLE IF NOT EXISTS auth.webauthn_challenges (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid REFERENCES auth.users (id) ON DELETE CASCADE,
  challenge_type text NOT NULL CHECK (challenge_type IN ('signup', 'registration', 'authentication')),
  session_data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS webauthn_challenges_user_id_idx ON auth.webauthn_challenges (user_id);
CREATE INDEX IF NOT EXISTS webauthn_challenges_expires_at_idx ON auth.webauthn_challenges (expires_at);
