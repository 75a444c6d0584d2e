-- Magic links, e-mail OTP codes, PKCE, invites and reauthentication nonces.
ALTER TABLE auth.users ADD COLUMN IF NOT EXISTS invited_at timestamptz, ADD COLUMN IF NOT EXISTS reauthentication_sent_at timestamptz;

-- A PKCE flow (RFC 7636) started by sign-up, recover, /otp or an e-mail change: its
-- challenge, then the hash of the auth code the mail link handed out.
CREATE TABLE IF NOT EXISTS auth.flow_state (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  authentication_method text NOT NULL,
  code_challenge text NOT NULL,
  code_challenge_method text NOT NULL CHECK (code_challenge_method IN ('s256', 'plain')),
  auth_code_hash text UNIQUE,
  auth_code_issued_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS flow_state_user_idx ON auth.flow_state (user_id);

-- otp_hash: the 6-digit code mailed with the link, hashed with the user id.
ALTER TABLE auth.one_time_tokens ADD COLUMN IF NOT EXISTS otp_hash text,
  ADD COLUMN IF NOT EXISTS flow_state_id uuid REFERENCES auth.flow_state (id) ON DELETE SET NULL;
ALTER TABLE auth.one_time_tokens DROP CONSTRAINT IF EXISTS one_time_tokens_token_type_check,
  ADD CONSTRAINT one_time_tokens_token_type_check
  CHECK (token_type IN ('confirmation', 'recovery', 'email_change', 'magiclink', 'reauthentication'));
