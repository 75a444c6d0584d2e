-- Each project's asymmetric signing keys (Supabase's "JWT signing keys"). The project's
-- jwt_secret stays: it signs the anon and service_role API keys (HS256, as Supabase's
-- legacy keys) and verifies HS256 tokens issued before the project had a key.
-- A project signs access tokens with its one 'current' key; a 'previous' key still
-- verifies until expires_at (the rotation's grace period), then is gone from the JWKS.
CREATE TABLE project_signing_keys (
  ref text NOT NULL REFERENCES projects (ref) ON DELETE CASCADE,
  kid text NOT NULL,
  alg text NOT NULL CHECK (alg IN ('ES256', 'RS256')),
  -- The private JWK, held like jwt_secret: readable only by the cluster superuser Gantry connects as.
  private_jwk jsonb NOT NULL,
  public_jwk jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('current', 'previous')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  PRIMARY KEY (ref, kid),
  CHECK ((status = 'current') = (expires_at IS NULL))
);
CREATE UNIQUE INDEX project_signing_keys_one_current ON project_signing_keys (ref) WHERE status = 'current';
REVOKE ALL ON project_signing_keys FROM PUBLIC;

-- A rotation wakes every running host, as a change to the project row does.
CREATE TRIGGER project_signing_keys_notify AFTER INSERT OR UPDATE OR DELETE ON project_signing_keys
  FOR EACH ROW EXECUTE FUNCTION notify_project_change();
