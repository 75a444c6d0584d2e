-- The session an authorization code's exchange opened. The exchange keeps the code's row
-- (instead of deleting it) so a code presented again is recognised as replayed and that
-- session, with every token issued from the code, is revoked (OAuth 2.1 §4.1.2, RFC 6749 §10.5).
-- Idempotent, as every project migration: a database may already have some of it.
ALTER TABLE auth.oauth_authorizations ADD COLUMN IF NOT EXISTS session_id uuid REFERENCES auth.sessions (id) ON DELETE CASCADE;
