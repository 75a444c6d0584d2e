import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../runtime/rest/errors.js';
import { parseRequest } from '../../../runtime/rest/parse/request.js';
import { buildStatement } from '../../../runtime/rest/sql/build.js';
import { META } from '../../helpers/rest-fixture-meta.js';
import { request } from './request-helper.js';

/** Text between identifiers and parameters: what the SQL would contain besides quoted names and $n. */
function unquoted(sql: string): string {
  return sql.replace(/"(?:[^"]|"")*"/g, '""');
}

describe('hostile input', () => {
  it('quotes client-chosen output names and binds JSON keys', () => {
    const alias = 'x"; DROP TABLE films; --';
    const st = buildStatement(request('GET', 'films', `select=${encodeURIComponent(`"${alias.replace(/"/g, '\\"')}":meta->"a'b"->>"c;d"`)}`), META);
    expect(st.text).toContain('"x""; DROP TABLE films; --"');
    expect(unquoted(st.text)).not.toMatch(/DROP|'b|;/);
    expect(st.values).toEqual(["a'b", 'c;d']);
  });

  it('binds very long and unicode values', () => {
    const long = `é😀'"\\`.repeat(20_000);
    const st = buildStatement(request('GET', 'films', `title=eq.${encodeURIComponent(long)}&id=in.(${encodeURIComponent(`"${'x'.repeat(10_000)}"`)})`), META);
    expect(st.values).toEqual([long, `{"${'x'.repeat(10_000)}"}`]);
    expect(st.text.length).toBeLessThan(1000);
  });

  it('refuses requests needing more bind parameters than PostgreSQL accepts', () => {
    const query = `select=id&${Array.from({ length: 70_000 }, (_, i) => `id=eq.${i}`).join('&')}`;
    expect(() => buildStatement(request('GET', 'films', query), META)).toThrowError('Too many values in the request');
  });

  it('never throws anything but ApiError, and keeps SQL text free of client text outside quotes', () => {
    let seed = 7;
    const rnd = (n: number) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
    const atoms = ['id', 'title', 'meta', 'tags', 'directors', 'roles', 'actors', '(', ')', ',', '.', ':', '::', '->', '->>', '!inner',
      '!billing', '"', '\\', "'", ';', '*', 'eq', 'in', 'is', 'null', 'not', 'or', 'and', 'like', 'fts', '(english)', '{', '}', '1',
      ' ', '%', 'é', '😀', 'text', '...', '$1', '--', '/*', 'DROP'];
    const keys = ['select', 'id', 'title', 'order', 'or', 'not.and', 'roles.character', 'roles.order', 'roles.limit', 'meta->>a', 'limit', 'roles'];
    const gen = (n: number) => Array.from({ length: n }, () => atoms[rnd(atoms.length)]).join('');
    let built = 0;
    const structured = [
      () => `select=${encodeURIComponent(['id,directors(*)', 'a:title,meta->>x', 'id,roles(character)', '*'][rnd(4)] ?? '*')}`,
      () => `${['id', 'title', 'meta->>k', 'tags'][rnd(4)]}=${encodeURIComponent(`${['eq', 'like', 'in', 'cs', 'fts', 'not.eq'][rnd(6)]}.${gen(1 + rnd(4))}`)}`,
      () => `or=${encodeURIComponent(`(title.eq."${gen(3).replace(/["\\]/g, '')}",id.in.(1,2))`)}`,
    ];
    for (let i = 0; i < 1500; i += 1) {
      const query = Array.from({ length: 1 + rnd(3) }, () => rnd(2) === 0
        ? (structured[rnd(structured.length)] ?? (() => ''))()
        : `${encodeURIComponent(keys[rnd(keys.length)] ?? '')}=${encodeURIComponent(rnd(3) === 0 ? `eq.${gen(3)}` : `id,${gen(1 + rnd(6))}`)}`).join('&');
      try {
        const req = parseRequest({ method: 'GET', resource: { kind: 'table', name: 'films' }, query, headers: {}, body: null, schemas: ['public'] });
        const st = buildStatement(req, META);
        expect(unquoted(st.text)).not.toMatch(/DROP|;|--|\/\*|é|😀/);
        built += 1;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        expect(err.status).toBeGreaterThanOrEqual(300);
        expect(err.status).toBeLessThan(500);
      }
    }
    expect(built).toBeGreaterThan(100);
  });
});
