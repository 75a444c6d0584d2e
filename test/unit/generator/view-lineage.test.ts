import { describe, expect, it } from 'vitest';
import { viewColumnOrigins } from '../../../generator/introspect/view-lineage.js';

const entry = (resno: number, name: string, table: number, column: number, junk = false): string =>
  `{TARGETENTRY :expr {VAR :varno 3 :varattno ${column} :location 43} :resno ${resno} :resname ${name} ` +
  `:ressortgroupref 0 :resorigtbl ${table} :resorigcol ${column} :resjunk ${junk}}`;

describe('viewColumnOrigins', () => {
  it('reads the top-level target list of a stored view rule', () => {
    const action =
      '({QUERY :commandType 1 :utilityStmt <> :rtable ({RANGETBLENTRY :alias <> :eref {ALIAS :aliasname orders ' +
      ':colnames ("id" "user\\ id\\(x\\)")} :relid 16596 :relkind r}) :jointree {FROMEXPR :fromlist ({RANGETBLREF :rtindex 3}) ' +
      ':quals {CONST :consttype 16 :constvalue 4 [ -128 64 0 0 ]}} :targetList (' +
      [entry(1, 'id', 16596, 1), entry(2, 'buyer\\ id', 16596, 2), entry(3, 'total', 0, 0), entry(4, 'x', 16596, 5, true)].join(' ') +
      ') :override 0 :setOperations <>})';
    expect(viewColumnOrigins(action)).toEqual([
      { resno: 1, table: '16596', column: 1 },
      { resno: 2, table: '16596', column: 2 },
    ]);
  });

  it('ignores target lists of subqueries in the range table', () => {
    const action =
      '({QUERY :rtable ({RANGETBLENTRY :rtekind 1 :subquery {QUERY :targetList (' +
      entry(1, 'inner', 111, 7) +
      ')}}) :targetList (' +
      entry(1, 'outer', 222, 3) +
      ')})';
    expect(viewColumnOrigins(action)).toEqual([{ resno: 1, table: '222', column: 3 }]);
  });

  it('returns nothing for text it cannot read', () => {
    expect(viewColumnOrigins('')).toEqual([]);
    expect(viewColumnOrigins('({QUERY :targetList <>})')).toEqual([]);
  });
});
