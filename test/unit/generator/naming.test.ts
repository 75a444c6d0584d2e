import { describe, expect, it } from 'vitest';
import { docComment, Imports, printValue, raw } from '../../../generator/emit/code.js';
import { IdentifierRegistry, moduleFileBase, propertyKey, schemaFileBase, stringLiteral } from '../../../generator/emit/names.js';
import { canonicalJson } from '../../../generator/model/fingerprint.js';
import { compareCodePoints, sortByKey } from '../../../generator/model/sort.js';

describe('propertyKey', () => {
  it('leaves identifier names and keywords bare', () => {
    expect(['id', 'class', 'order', 'constructor', '$x', '_y'].map(propertyKey)).toEqual([
      'id', 'class', 'order', 'constructor', '$x', '_y',
    ]);
  });
  it('quotes everything else and computes __proto__', () => {
    expect(propertyKey('Display Name')).toBe('"Display Name"');
    expect(propertyKey('2fa')).toBe('"2fa"');
    expect(propertyKey('a"b')).toBe('"a\\"b"');
    expect(propertyKey('naïve')).toBe('"naïve"');
    expect(propertyKey('__proto__')).toBe('["__proto__"]');
  });
  it('escapes string literals', () => {
    expect(stringLiteral('it\'s "x"\n')).toBe('"it\'s \\"x\\"\\n"');
  });
});

describe('moduleFileBase', () => {
  it('keeps plain lower-case names of the default schema', () => {
    expect(moduleFileBase('public', 'users', 'public')).toBe('users');
    expect(moduleFileBase('public', '2fa_codes', 'public')).toBe('2fa_codes');
  });
  it('hashes names that fold, need escaping, are device names or live in another schema', () => {
    const names = ['User', 'USER', 'user', 'con', '123 weird-table.name'];
    const bases = names.map((name) => moduleFileBase('public', name, 'public'));
    expect(bases[2]).toBe('user');
    expect(bases[0]).toMatch(/^user-[0-9a-f]{8}$/);
    expect(bases[1]).toMatch(/^user-[0-9a-f]{8}$/);
    expect(bases[3]).toMatch(/^con-[0-9a-f]{8}$/);
    expect(bases[4]).toMatch(/^123_weird_table_name-[0-9a-f]{8}$/);
    expect(new Set(bases.map((b) => b.toLowerCase())).size).toBe(names.length);
    expect(moduleFileBase('api', 'users', 'public')).toMatch(/^api_users-[0-9a-f]{8}$/);
  });
  it('is a function of the name alone (adding a table never renames another)', () => {
    expect(moduleFileBase('public', 'User', 'public')).toBe(moduleFileBase('public', 'User', 'public'));
  });
});

describe('schemaFileBase', () => {
  it('keeps plain lower-case schema names and folds and hashes any other, distinct on case-insensitive file systems', () => {
    expect(schemaFileBase('private')).toBe('private');
    expect(schemaFileBase('con')).toBe('con');
    const names = ['Private', 'PRIVATE', '../etc', 'Back Office', 'private-1a2b3c4d', ''];
    const bases = names.map(schemaFileBase);
    expect(bases[0]).toMatch(/^private-[0-9a-f]{8}$/);
    expect(bases[2]).toMatch(/^etc-[0-9a-f]{8}$/);
    expect(bases[3]).toMatch(/^back_office-[0-9a-f]{8}$/);
    expect(bases[4]).toMatch(/^private_1a2b3c4d-[0-9a-f]{8}$/);
    expect(bases[5]).toMatch(/^x-[0-9a-f]{8}$/);
    for (const base of bases) expect(base).toMatch(/^[a-z0-9_-]+$/);
    expect(new Set([...bases, 'private'].map((b) => b.toLowerCase())).size).toBe(names.length + 1);
  });
});

describe('IdentifierRegistry', () => {
  it('makes valid, distinct identifiers', () => {
    const registry = new IdentifierRegistry();
    expect(registry.allocate('table_', 'user-1a2b3c4d')).toBe('table_user_1a2b3c4d');
    expect(registry.allocate('table_', 'user_1a2b3c4d')).toBe('table_user_1a2b3c4d_2');
    expect(registry.allocate('rpc_', 'delete')).toBe('rpc_delete');
  });
});

describe('sorting', () => {
  it('orders by code point, independent of locale', () => {
    const words = ['zeta', 'äpple', 'apple', 'Beta', '_id', 'b'];
    expect([...words].sort(compareCodePoints)).toEqual(['Beta', '_id', 'apple', 'b', 'zeta', 'äpple']);
  });
  it('sorts by key tuples with shorter prefixes first', () => {
    const rows = [{ k: ['a', 'b'] }, { k: ['a'] }, { k: ['B'] }];
    expect(sortByKey(rows, (r) => r.k).map((r) => r.k.join('.'))).toEqual(['B', 'a', 'a.b']);
  });
  it('canonical JSON sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}');
  });
});

describe('printing', () => {
  it('prints values in the house style', () => {
    expect(printValue({ a: [1, 'x'], 'b c': { d: null }, e: [], f: raw('ref.meta') })).toBe(
      '{\n  a: [1, "x"],\n  "b c": { d: null },\n  e: [],\n  f: ref.meta,\n}',
    );
    const long = { first: 'x'.repeat(40), second: 'y'.repeat(40) };
    expect(printValue(long)).toBe(`{\n  first: "${'x'.repeat(40)}",\n  second: "${'y'.repeat(40)}",\n}`);
  });
  it('sorts imports and marks type-only specifiers', () => {
    const imports = new Imports();
    imports.add('./b.js', 'Z', true);
    imports.add('./a.js', 'run', false);
    imports.add('./a.js', 'Meta', true);
    expect(imports.print()).toBe('import { type Meta, run } from "./a.js";\nimport type { Z } from "./b.js";\n');
  });
  it('keeps comments from closing the doc block early', () => {
    expect(docComment('a */ b')).toBe('/** a *\\/ b */\n');
    expect(docComment('one\n\ntwo ')).toBe('/**\n * one\n *\n * two\n */\n');
    expect(docComment(null)).toBe('');
  });
});
