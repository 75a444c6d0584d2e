import { describe, expect, it } from 'vitest';
import { loggedStatements, scriptShapes, statementShape } from '../../../bench/statement-log.js';

const LOG = [
  '2026-11-26 23:06:20.295 UTC [316] LOG:  received SIGHUP, reloading configuration files',
  '2026-11-26 23:06:20.601 UTC [354] LOG:  execute <unnamed>: INSERT INTO t AS r (a, b) VALUES ($1, $2)',
  '\t     ON CONFLICT (a) DO UPDATE SET',
  '\t       b = $2',
  "2026-11-26 23:06:20.601 UTC [354] DETAIL:  Parameters: $1 = 'token', $2 = '127.0.0.1'",
  '2026-11-26 23:06:20.605 UTC [355] LOG:  statement: BEGIN',
  '2026-11-26 23:06:20.605 UTC [355] LOG:  execute s1: SELECT session_id FROM auth.refresh_tokens WHERE token_hash = $1',
  "2026-11-26 23:06:20.605 UTC [355] DETAIL:  Parameters: $1 = 'ab'",
  '2026-11-26 23:06:20.606 UTC [355] ERROR:  execute <unnamed>: not a statement line',
  '2026-11-26 23:06:20.613 UTC [355] LOG:  statement: COMMIT',
  '',
].join('\n');

describe('loggedStatements', () => {
  it('reads each statement, with its further lines and without its parameters, in log order', () => {
    expect(loggedStatements(LOG)).toEqual([
      { pid: 354, text: 'INSERT INTO t AS r (a, b) VALUES ($1, $2)\n     ON CONFLICT (a) DO UPDATE SET\n       b = $2' },
      { pid: 355, text: 'BEGIN' },
      { pid: 355, text: 'SELECT session_id FROM auth.refresh_tokens WHERE token_hash = $1' },
      { pid: 355, text: 'COMMIT' },
    ]);
  });
});

describe('statementShape and scriptShapes', () => {
  it('give a server statement and its pgbench twin the same shape', () => {
    expect(statementShape('SELECT * FROM auth.sessions\n   WHERE id = $1 FOR UPDATE')).toBe('SELECT * FROM auth.sessions WHERE id = ? FOR UPDATE');
    expect(statementShape('SELECT a::int FROM t WHERE id = :session_id;')).toBe('SELECT a::int FROM t WHERE id = ?');
    expect(statementShape('WITH a AS (\n  UPDATE t SET x = $1 WHERE id = $2\n)\nINSERT INTO u (a, b) VALUES ($1, $3)'))
      .toBe(statementShape('WITH a AS (UPDATE t SET x = :x WHERE id = :id) INSERT INTO u (a,b) VALUES (:x, :y);'));
  });

  it('leave out meta-commands, \\gset and the once-only \\if block of a script', () => {
    const script = [
      '\\if :n = 0',
      'SELECT (string_to_array(:heads, \',\'))[:client_id::int + 1] AS tok \\gset',
      '\\endif',
      '\\set n :n + 1',
      'BEGIN;',
      'SELECT session_id FROM auth.refresh_tokens WHERE token_hash = :tok \\gset',
      'UPDATE auth.sessions SET refreshed_at = :now',
      '  WHERE id = :session_id;',
      'COMMIT;',
      '\\set tok :child',
      '',
    ].join('\n');
    expect(scriptShapes(script)).toEqual([
      'BEGIN',
      'SELECT session_id FROM auth.refresh_tokens WHERE token_hash = ?',
      'UPDATE auth.sessions SET refreshed_at = ? WHERE id = ?',
      'COMMIT',
    ]);
  });
});
