import { describe, expect, it } from 'vitest';
import { splitStatements } from '../../../runtime/platform/sql-statements.js';

describe('splitStatements', () => {
  it('splits at top-level semicolons and reports each statement\'s first line', () => {
    expect(splitStatements('select 1;\n\n  select 2;\nselect 3')).toEqual([
      { sql: 'select 1', line: 1 },
      { sql: 'select 2', line: 3 },
      { sql: 'select 3', line: 4 },
    ]);
  });

  it('does not split inside strings, identifiers, dollar quotes and comments', () => {
    const script = [
      "insert into t values ('a;b', 'it''s;');",
      'create table "we;ird" (id int);',
      'create function f() returns int language sql as $body$ select 1; $body$;',
      'do $$ begin perform 1; end $$;',
      '-- a comment; with a semicolon',
      '/* block; /* nested; */ still; */ select 4;',
    ].join('\n');
    expect(splitStatements(script).map((s) => s.line)).toEqual([1, 2, 3, 4, 5]);
    expect(splitStatements(script)[2]!.sql).toBe('create function f() returns int language sql as $body$ select 1; $body$');
  });

  it('drops empty statements', () => {
    expect(splitStatements(';;\n;')).toEqual([]);
  });
});
