-- Secure e-mail change (GoTrue's MAILER_SECURE_EMAIL_CHANGE_ENABLED): the current address confirms
-- a change too, with a token of its own; email_change_confirm_status is 1 once one of the two did.
ALTER TABLE auth.users ADD COLUMN IF NOT EXISTS email_change_confirm_status smallint NOT NULL DEFAULT 0
  CHECK (email_change_confirm_status IN (0, 1));
ALTER TABLE auth.one_time_tokens DROP CONSTRAINT IF EXISTS one_time_tokens_token_type_check,
  ADD CONSTRAINT one_time_tokens_token_type_check
  CHECK (token_type IN ('confirmation', 'recovery', 'email_change', 'email_change_current', 'magiclink', 'reauthentication'));
