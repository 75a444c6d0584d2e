-- Tell running hosts that this database's schema changed (as PostgREST reloads its
-- schema cache): any DDL, from Gantry or from psql, notifies `gantry_schema` and bumps
-- `gantry.schema_version`, which a host reads when it loads the project again (see
-- project migration 003, which brings older databases to this).
CREATE SCHEMA gantry;
REVOKE ALL ON SCHEMA gantry FROM PUBLIC;
CREATE SEQUENCE gantry.schema_version;
CREATE FUNCTION gantry.notify_schema_change() RETURNS event_trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
BEGIN
  PERFORM nextval('gantry.schema_version');
  PERFORM pg_notify('gantry_schema', current_database());
END
$$;
CREATE EVENT TRIGGER gantry_schema_change ON ddl_command_end
  EXECUTE FUNCTION gantry.notify_schema_change();
CREATE EVENT TRIGGER gantry_schema_drop ON sql_drop
  EXECUTE FUNCTION gantry.notify_schema_change();
