-- A schema version that every DDL bumps, so a host that did not watch the database (the
-- project was unloaded) tells with one query whether its generated code is still current.
-- A sequence, not a row: nextval takes no lock and does not roll back, so concurrent DDL
-- never waits on it (a rolled-back DDL costs one needless regeneration check at most).
-- SECURITY DEFINER: DDL by any role (a temporary table in a function) may bump it.
CREATE SEQUENCE IF NOT EXISTS gantry.schema_version;
CREATE OR REPLACE FUNCTION gantry.notify_schema_change() RETURNS event_trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
BEGIN
  PERFORM nextval('gantry.schema_version');
  PERFORM pg_notify('gantry_schema', current_database());
END
$$;
