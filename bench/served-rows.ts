/**
 * The rows a server answered, as sorted comparable keys, so the bench's preflight can prove
 * that our API and every peer serve the same rows to the same user before any load is
 * applied (a server that answers less, or other rows, must not win). Each server has its
 * own envelope (PostgREST array, GraphQL connection); these functions only see the rows.
 */

type Row = Readonly<Record<string, unknown>>;

function isRow(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function rowsOf(value: unknown): readonly Row[] | null {
  return Array.isArray(value) && value.every(isRow) ? value : null;
}

function key(row: Row, columns: readonly string[]): string {
  return columns.map((c) => String(row[c])).join('|');
}

/** todos rows → `id|owner|title`, sorted; null when `value` is not an array of objects. */
export function todoKeys(value: unknown): readonly string[] | null {
  const rows = rowsOf(value);
  return rows ? rows.map((r) => key(r, ['id', 'owner', 'title'])).sort() : null;
}

/**
 * entries rows a POST inserted → `owner|title`, sorted (their ids and times are new each time, their owner is the
 * token's `sub` by the column's default); null when `value` is not an array of objects.
 */
export function entryKeys(value: unknown): readonly string[] | null {
  const rows = rowsOf(value);
  return rows ? rows.map((r) => key(r, ['owner', 'title'])).sort() : null;
}

/**
 * projects with their tasks → `id|name|[task id|title|done, …]`, both levels sorted.
 * `tasksOf` picks a project's task array out of the server's own shape.
 */
export function projectTaskKeys(value: unknown, tasksOf: (project: Row) => unknown): readonly string[] | null {
  const projects = rowsOf(value);
  if (!projects) return null;
  const keys: string[] = [];
  for (const project of projects) {
    const tasks = rowsOf(tasksOf(project));
    if (!tasks) return null;
    keys.push(`${key(project, ['id', 'name'])}|[${tasks.map((t) => key(t, ['id', 'title', 'done'])).sort().join(', ')}]`);
  }
  return keys.sort();
}

/**
 * A GraphQL connection's nodes with each Relay node id (`id`, base64 of `["Todo","7"]` in
 * PostGraphile's amber preset) replaced by the primary key inside it, so the keys compare with
 * the table rows; null when a node id has another form.
 */
export function withRelayPrimaryKeys(value: unknown): readonly Row[] | null {
  const rows = rowsOf(value);
  if (!rows) return null;
  const out: Row[] = [];
  for (const row of rows) {
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(String(row.id), 'base64').toString('utf8'));
    } catch {
      return null;
    }
    if (!Array.isArray(decoded) || decoded.length !== 2) return null;
    out.push({ ...row, id: decoded[1] });
  }
  return out;
}

/** `value` at `path` of nested objects, undefined when any step is missing. */
export function at(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const step of path) {
    if (!isRow(current)) return undefined;
    current = current[step];
  }
  return current;
}

/** Same keys in the same order (both sorted), and not empty. */
export function sameRows(expected: readonly string[], actual: readonly string[] | null): boolean {
  return actual !== null && expected.length > 0 && actual.length === expected.length && actual.every((k, i) => k === expected[i]);
}
