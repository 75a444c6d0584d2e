import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';

/**
 * What a server sends PostgreSQL for one request, read from the cluster's own log
 * (`log_statement = all` for the moment of the request): the pgbench scripts that stand for a
 * request are checked against it, so that they stay the statements the server really runs.
 */

export interface LoggedStatement {
  readonly pid: number;
  readonly text: string;
}

/** The statements a PostgreSQL log excerpt records (`statement:` and `execute <name>:` lines), in log order. */
export function loggedStatements(log: string): LoggedStatement[] {
  const statements: LoggedStatement[] = [];
  let current: { pid: number; text: string } | null = null;
  const flush = (): void => {
    if (current !== null) statements.push(current);
    current = null;
  };
  for (const line of log.split('\n')) {
    const head = /^\S+ \S+ \S+ \[(\d+)\] (\w+):\s+(.*)$/.exec(line);
    if (head === null) {
      // A statement's further lines start with a tab.
      if (current !== null && line.startsWith('\t')) current.text += `\n${line.slice(1)}`;
      continue;
    }
    flush();
    const statement = /^(?:statement|execute [^:]+): ([\s\S]*)$/.exec(head[3] as string);
    if (head[2] === 'LOG' && statement !== null) current = { pid: Number(head[1]), text: statement[1] as string };
  }
  flush();
  return statements;
}

/**
 * A statement's shape: whitespace collapsed (and dropped next to parentheses and commas), `$n` parameters and pgbench's `:name` variables
 * alike as `?`, so that the server's statement and pgbench's compare equal.
 */
export function statementShape(sql: string): string {
  return sql
    .replace(/\s+/g, ' ')
    .replace(/ ?([(),]) ?/g, '$1')
    .trim()
    .replace(/;$/, '')
    .replace(/\$\d+|(?<!:):[a-z_][a-z0-9_]*/gi, '?');
}

/**
 * The SQL statements of a pgbench script as shapes, its meta-commands, `\gset` and what runs
 * inside `\if` blocks (a client's once-only setup) left out.
 */
export function scriptShapes(script: string): string[] {
  const shapes: string[] = [];
  let pending = '';
  let depth = 0;
  for (const line of script.split('\n')) {
    if (line.startsWith('\\if')) depth += 1;
    if (line.startsWith('\\endif')) depth -= 1;
    if (line.startsWith('\\') || depth > 0) continue;
    const gset = line.indexOf('\\gset');
    pending += ` ${gset < 0 ? line : line.slice(0, gset)}`;
    if (gset >= 0 || line.trimEnd().endsWith(';')) {
      if (pending.trim() !== '') shapes.push(statementShape(pending));
      pending = '';
    }
  }
  return shapes;
}

/** The embedded cluster's log file: its postmaster's standard error (pg_ctl -l). */
async function clusterLogFile(dataDir: string): Promise<string> {
  const pid = (await fs.readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0];
  return fs.readlink(`/proc/${pid}/fd/2`);
}

/** Runs `statement` and reloads the configuration; returns the backend's pid. */
async function reloadWith(superuserUrl: string, statement: string): Promise<number> {
  const client = new pg.Client(superuserUrl);
  await client.connect();
  try {
    await client.query(statement);
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_reload_conf()');
    return (rows[0] as { pid: number }).pid;
  } finally {
    await client.end();
  }
}

/** Time for the postmaster's backends to take a reloaded setting (they read it between statements). */
const RELOAD_SETTLE_MS = 300;

/**
 * Every statement the cluster ran while `act` ran, in log order, read from the embedded cluster's
 * log with `log_statement = all` switched on for just that long (the server being otherwise idle,
 * these are what it sent for `act`'s request, whichever of its connections carried each).
 */
export async function captureStatements(dataDir: string, superuserUrl: string, act: () => Promise<void>): Promise<string[]> {
  const logFile = await clusterLogFile(dataDir);
  const from = (await fs.stat(logFile)).size;
  const setPid = await reloadWith(superuserUrl, "ALTER SYSTEM SET log_statement = 'all'");
  let resetPid = 0;
  try {
    await new Promise((resolve) => setTimeout(resolve, RELOAD_SETTLE_MS));
    await act();
  } finally {
    resetPid = await reloadWith(superuserUrl, 'ALTER SYSTEM RESET log_statement');
  }
  const handle = await fs.open(logFile);
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(size - from);
    await handle.read(buffer, 0, buffer.length, from);
    return loggedStatements(buffer.toString('utf8')).filter((s) => s.pid !== setPid && s.pid !== resetPid).map((s) => s.text);
  } finally {
    await handle.close();
  }
}
