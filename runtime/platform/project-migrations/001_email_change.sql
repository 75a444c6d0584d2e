-- E-mail changes (PUT /user {email}): the pending address and a token type for its link.
ALTER TABLE auth.users ADD COLUMN IF NOT EXISTS new_email text, ADD COLUMN IF NOT EXISTS email_change_sent_at timestamptz;
ALTER TABLE auth.one_time_tokens DROP CONSTRAINT IF EXISTS one_time_tokens_token_type_check,
  ADD CONSTRAINT one_time_tokens_token_type_check CHECK (token_type IN ('confirmation', 'recovery', 'email_change'));
