CREATE TABLE projects (
  ref text PRIMARY KEY CHECK (ref ~ '^[a-z][a-z0-9_]{2,39}$'),
  database_name text NOT NULL UNIQUE,
  jwt_secret text NOT NULL,
  settings jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Cluster-wide secrets, e.g. the authenticator role's password.
CREATE TABLE cluster_secrets (
  name text PRIMARY KEY,
  value text NOT NULL
);

-- Any change to the registry wakes every running host (payload: the ref).
CREATE FUNCTION notify_project_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('gantry_projects', coalesce(NEW.ref, OLD.ref));
  RETURN NULL;
END
$$;
CREATE TRIGGER projects_notify AFTER INSERT OR UPDATE OR DELETE ON projects
  FOR EACH ROW EXECUTE FUNCTION notify_project_change();
