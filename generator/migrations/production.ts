import type pg from 'pg';

/**
 * The production mark of a project database: the database-level setting `gantry.environment =
 * 'production'` (`ALTER DATABASE … SET`). It lives in the cluster's catalog, so every process on
 * every host that reaches the database sees it, it needs no table (no DDL, so no event trigger
 * sends the hosts regenerating), and it goes with the database: a copy restored elsewhere keeps it
 * only when its database-level settings are restored too (`pg_dump --create`).
 */
const SETTING = 'gantry.environment';
const PRODUCTION = 'production';

type Db = Pick<pg.ClientBase, 'query'>;

/** Marks `databaseName` as production; idempotent. */
export async function markProduction(client: pg.ClientBase, databaseName: string): Promise<void> {
  await client.query(`ALTER DATABASE ${client.escapeIdentifier(databaseName)} SET ${SETTING} = ${client.escapeLiteral(PRODUCTION)}`);
}

/** Whether `databaseName` carries the production mark (read from the catalog, whichever database `db` is on). */
export async function isProduction(db: Db, databaseName: string): Promise<boolean> {
  const { rows } = await db.query<{ marked: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
        WHERE d.datname = $1 AND s.setrole = 0 AND $2 = ANY (s.setconfig)
     ) AS marked`,
    [databaseName, `${SETTING}=${PRODUCTION}`],
  );
  return rows[0]!.marked;
}
