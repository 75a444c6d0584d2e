-- Anonymous users (POST /signup with neither e-mail nor phone): no address, is_anonymous until they link one (GoTrue's column).
ALTER TABLE auth.users ALTER COLUMN email DROP NOT NULL, ADD COLUMN IF NOT EXISTS is_anonymous boolean NOT NULL DEFAULT false;
CREATE INDEX IF NOT EXISTS users_is_anonymous_idx ON auth.users (is_anonymous);
