import type pg from 'pg';

/**
 * The tables of a project database that hold rows a reset would lose: every table of the user's
 * schemas (not PostgreSQL's, not Gantry's own `auth`, `gantry` and `supabase_migrations`, not an
 * extension's such as PostGIS's spatial_ref_sys) and auth.users. Qualified names, sorted.
 */
export async function tablesWithRows(client: Pick<pg.ClientBase, 'query'>): Promise<string[]> {
  const { rows: tables } = await client.query<{ name: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p')
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
        AND (n.nspname NOT IN ('pg_catalog', 'information_schema', 'auth', 'gantry', 'supabase_migrations') AND n.nspname NOT LIKE 'pg\\_%'
             OR (n.nspname = 'auth' AND c.relname = 'users'))
      ORDER BY 1`,
  );
  const full: string[] = [];
  // One EXISTS each: an exact count of a large table would read all of it.
  for (const { name } of tables) {
    if ((await client.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${name}) AS any`)).rows[0]!.any) full.push(name);
  }
  return full;
}
