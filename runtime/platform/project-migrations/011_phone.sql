-- Phone sign-in: a user's phone number (E.164 digits without "+", unique as GoTrue's users.phone)
-- and when it was confirmed, a requested phone change waiting for its code; SMS codes as one-time
-- tokens of their own types; phone MFA factors (their number) and their challenges' hashed codes.
-- Idempotent, as every project migration: a database may already have some of it.
ALTER TABLE auth.users ADD COLUMN IF NOT EXISTS phone text;
ALTER TABLE auth.users ADD COLUMN IF NOT EXISTS phone_confirmed_at timestamptz;
ALTER TABLE auth.users ADD COLUMN IF NOT EXISTS phone_change text;
ALTER TABLE auth.users ADD COLUMN IF NOT EXISTS phone_change_sent_at timestamptz;
CREATE UNIQUE INDEX IF NOT EXISTS users_phone_key ON auth.users (phone);
ALTER TABLE auth.one_time_tokens DROP CONSTRAINT IF EXISTS one_time_tokens_token_type_check;
ALTER TABLE auth.one_time_tokens ADD CONSTRAINT one_time_tokens_token_type_check
  CHECK (token_type IN ('confirmation', 'recovery', 'email_change', 'email_change_current', 'magiclink', 'reauthentication', 'sms', 'phone_change'));
ALTER TABLE auth.mfa_factors DROP CONSTRAINT IF EXISTS mfa_factors_factor_type_check;
ALTER TABLE auth.mfa_factors ADD CONSTRAINT mfa_factors_factor_type_check CHECK (factor_type IN ('totp', 'webauthn', 'phone'));
ALTER TABLE auth.mfa_factors ADD COLUMN IF NOT EXISTS phone text;
ALTER TABLE auth.mfa_challenges ADD COLUMN IF NOT EXISTS otp_hash text;
-- A user's factors as the user object lists them, now with a phone factor's number.
CREATE OR REPLACE FUNCTION auth.user_factors(user_id uuid) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_agg(jsonb_build_object(
           'id', f.id, 'created_at', f.created_at, 'updated_at', f.updated_at, 'status', f.status,
           'friendly_name', f.friendly_name, 'factor_type', f.factor_type, 'phone', f.phone, 'last_challenged_at', f.last_challenged_at)
         ORDER BY f.created_at, f.id)
  FROM auth.mfa_factors f WHERE f.user_id = $1
$$;
REVOKE EXECUTE ON FUNCTION auth.user_factors(uuid) FROM PUBLIC;
