-- The cluster each project's database lives on: 'default' is the main cluster (DATABASE_URL or
-- the embedded one), which also holds this registry; other names are declared by GANTRY_CLUSTERS.
ALTER TABLE projects ADD COLUMN cluster text NOT NULL DEFAULT 'default';
-- A move in progress (`project move`): hosts pause the project's writes while its data is copied there.
ALTER TABLE projects ADD COLUMN moving_to text;
-- After a move, the cluster still holding the old (read-only) database until `project move --confirm` drops it.
ALTER TABLE projects ADD COLUMN moved_from text;
CREATE INDEX projects_cluster ON projects (cluster);
