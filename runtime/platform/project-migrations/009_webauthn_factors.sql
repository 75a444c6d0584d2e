-- WebAuthn MFA factors: a factor holds its credential instead of a TOTP secret, a challenge the
-- ceremony's challenge, and a session the kind of factor it reached aal2 with (its amr entry).
-- Idempotent, as every project migration: a database may already have some of it.
ALTER TABLE auth.mfa_factors DROP CONSTRAINT IF EXISTS mfa_factors_factor_type_check;
ALTER TABLE auth.mfa_factors ADD CONSTRAINT mfa_factors_factor_type_check CHECK (factor_type IN ('totp', 'webauthn'));
ALTER TABLE auth.mfa_factors ALTER COLUMN secret_sealed DROP NOT NULL;
ALTER TABLE auth.mfa_factors ADD COLUMN IF NOT EXISTS web_authn_credential jsonb;
ALTER TABLE auth.mfa_challenges ADD COLUMN IF NOT EXISTS web_authn_session_data jsonb;
ALTER TABLE auth.sessions ADD COLUMN IF NOT EXISTS mfa_method text;
