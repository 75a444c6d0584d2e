import path from 'node:path';
import { configureProject } from '../../generator/settings/project-config.js';
import { readGenerated } from '../../generator/write.js';
import type { Platform, ProjectRecord } from '../../runtime/platform/platform.js';

/** A second schema for the demo: `extra`, with a table named like one of the demo's and a function. */
export const EXTRA_SCHEMA_SQL = `
CREATE SCHEMA extra;
GRANT USAGE ON SCHEMA extra TO anon, authenticated, service_role;
CREATE TABLE extra.todos (id int PRIMARY KEY, label text NOT NULL);
COMMENT ON TABLE extra.todos IS 'Todos of the extra schema.';
INSERT INTO extra.todos VALUES (1, 'first'), (2, 'second');
GRANT SELECT ON extra.todos TO anon, authenticated;
GRANT ALL ON extra.todos TO service_role;
CREATE FUNCTION extra.label_of(todo_id int) RETURNS text LANGUAGE sql STABLE AS 'SELECT label FROM extra.todos WHERE id = todo_id';
`;

/**
 * Exposes the given schemas as `project config --set api.schemas=…` does (the code is
 * regenerated, then the setting stored); returns the generated files. Reload the project
 * on the host afterwards to serve them.
 */
export async function generateExposing(platform: Platform, record: ProjectRecord, schemas: readonly string[]): Promise<Map<string, string>> {
  await configureProject(platform, record, [{ key: 'api.schemas', value: schemas }]);
  return readGenerated(path.join(platform.config.generatedDir, record.ref));
}
