import { describe, expect, it } from 'vitest';
import { allowedMethods } from '../../../runtime/rest/allowed-methods.js';
import type { ProjectMeta, TableMeta } from '../../../runtime/rest/metadata.js';
import { META } from '../../helpers/rest-fixture-meta.js';

function withView(updatable: TableMeta['updatable']): ProjectMeta {
  const films = META.tables['public.films'] as TableMeta;
  return { ...META, tables: { ...META.tables, 'public.v': { ...films, name: 'v', kind: 'view', updatable } } };
}

describe('allowedMethods (the Allow header of OPTIONS and 405)', () => {
  it('a table takes every method', () => {
    expect(allowedMethods(META, 'public', { kind: 'table', name: 'films' })).toBe('OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE');
  });

  it('a view takes what it can do: PUT and PATCH follow UPDATE', () => {
    const none = { insert: false, update: false, delete: false };
    expect(allowedMethods(withView(none), 'public', { kind: 'table', name: 'v' })).toBe('OPTIONS,GET,HEAD');
    expect(allowedMethods(withView({ ...none, update: true }), 'public', { kind: 'table', name: 'v' })).toBe('OPTIONS,GET,HEAD,PUT,PATCH');
    expect(allowedMethods(withView({ ...none, insert: true, delete: true }), 'public', { kind: 'table', name: 'v' }))
      .toBe('OPTIONS,GET,HEAD,POST,DELETE');
  });

  it('functions: GET and HEAD only when no overload is volatile', () => {
    expect(allowedMethods(META, 'public', { kind: 'rpc', name: 'add_them' })).toBe('OPTIONS,GET,HEAD,POST');
    expect(allowedMethods(META, 'public', { kind: 'rpc', name: 'echo' })).toBe('OPTIONS,POST');
    expect(allowedMethods(META, 'public', { kind: 'rpc', name: 'over' })).toBe('OPTIONS,POST');
  });

  it('an unknown resource is the usual 404', () => {
    expect(() => allowedMethods(META, 'public', { kind: 'table', name: 'flims' })).toThrow(expect.objectContaining({ status: 404, code: '42P01' }));
    expect(() => allowedMethods(META, 'public', { kind: 'rpc', name: 'nope' })).toThrow(expect.objectContaining({ status: 404, code: 'PGRST202' }));
  });
});
