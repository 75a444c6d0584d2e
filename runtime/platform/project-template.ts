import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';

/**
 * The template database new project databases are cloned from, named after what it holds (the
 * bootstrap's text hashed): a Gantry whose bootstrap changed makes and uses a new one, and a template
 * of another version is never cloned by mistake.
 */
export function templateName(bootstrap: string): string {
  return `gantry_template_${createHash('sha256').update(bootstrap).digest('hex').slice(0, 16)}`;
}

/**
 * Makes sure the cluster `admin` is connected to has the template `name`: `build` fills a database of
 * another name, which is then renamed into place (one statement: a concurrent process building the
 * same template loses the rename and drops its copy, so a template under its name is always whole),
 * and closed to connections, since PostgreSQL clones only a database nobody is connected to.
 */
export async function ensureTemplate(admin: pg.ClientBase, name: string, build: (database: string) => Promise<void>): Promise<void> {
  const present = async (): Promise<boolean> => (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  if (await present()) return;
  const building = `${name}_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(building)}`);
  try {
    await build(building);
    await admin.query(`ALTER DATABASE ${admin.escapeIdentifier(building)} RENAME TO ${admin.escapeIdentifier(name)}`);
  } catch (error) {
    await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(building)} WITH (FORCE)`);
    if (!(await present())) throw error;
  }
  await admin.query(`ALTER DATABASE ${admin.escapeIdentifier(name)} WITH ALLOW_CONNECTIONS false IS_TEMPLATE true`);
}
