import { describe, expect, it } from 'vitest';
import { insertFields, rowFields, updateFields } from '../../../generator/emit/row-types.js';
import { tsType, type TypeContext } from '../../../generator/emit/ts-types.js';
import { column, int4, model, table, text, type } from './model-fixtures.js';

const mood = type('mood', 'enum', { schema: 'public', sql: 'public.mood' });
const context = (used: string[] = []): TypeContext => ({
  model: model([table('things')], {
    enums: [{ schema: 'public', name: 'mood', values: ['b', 'a'], comment: null }],
    compositeTypes: [{ schema: 'public', name: 'pt', attributes: [], comment: null }],
  }),
  uses: (name) => used.push(name),
});

describe('tsType (as supabase gen types)', () => {
  it('maps numbers, strings, booleans and json', () => {
    const used: string[] = [];
    const ctx = context(used);
    expect(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric'].map((n) => tsType(type(n), ctx))).toEqual(Array(6).fill('number'));
    expect(['text', 'varchar', 'bpchar', 'uuid', 'date', 'timestamptz', 'time', 'bytea'].map((n) => tsType(type(n), ctx))).toEqual(Array(8).fill('string'));
    expect(tsType(type('bool'), ctx)).toBe('boolean');
    expect(tsType(type('jsonb'), ctx)).toBe('Json');
    expect(tsType(type('inet'), ctx)).toBe('unknown');
    expect(used).toEqual(['Json']);
  });
  it('maps arrays, domains, enums, composites and pseudo types', () => {
    const ctx = context();
    expect(tsType(type('_int4', 'array', { element: int4 }), ctx)).toBe('number[]');
    expect(tsType(type('email', 'domain', { base: text }), ctx)).toBe('string');
    expect(tsType(type('tags', 'domain', { base: type('_text', 'array', { element: text }) }), ctx)).toBe('string[]');
    expect(tsType(mood, ctx)).toBe('Database["public"]["Enums"]["mood"]');
    expect(tsType(type('_mood', 'array', { element: mood }), ctx)).toBe('Database["public"]["Enums"]["mood"][]');
    expect(tsType(type('pt', 'composite', { schema: 'public' }), ctx)).toBe('Database["public"]["CompositeTypes"]["pt"]');
    expect(tsType(type('things', 'composite', { schema: 'public' }), ctx)).toBe('Database["public"]["Tables"]["things"]["Row"]');
    expect(tsType(type('void', 'pseudo'), ctx)).toBe('undefined');
    expect(tsType(type('record', 'pseudo'), ctx)).toBe('Record<string, unknown>');
    expect(tsType(type('mood', 'enum', { schema: 'private' }), ctx)).toBe('unknown');
  });
});

describe('Row / Insert / Update fields', () => {
  const relation = table('t', {
    columns: [
      column('z_required', text),
      column('id', int4, { identity: 'always' }),
      column('by_default', int4, { identity: 'by default' }),
      column('defaulted', int4, { default: '0' }),
      column('maybe', text, { nullable: true }),
      column('computed', text, { nullable: true, generated: 'lower(z_required)' }),
    ],
  });
  it('sorts by name and marks nullability', () => {
    expect(rowFields(relation, context()).map((f) => `${f.name}${f.optional ? '?' : ''}: ${f.type}`)).toEqual([
      'by_default: number',
      'computed: string | null',
      'defaulted: number',
      'id: number',
      'maybe: string | null',
      'z_required: string',
    ]);
  });
  it('makes defaulted, identity and nullable columns optional on insert; computed ones never', () => {
    expect(insertFields(relation, context()).map((f) => `${f.name}${f.optional ? '?' : ''}: ${f.type}`)).toEqual([
      'by_default?: number',
      'computed?: never',
      'defaulted?: number',
      'id?: never',
      'maybe?: string | null',
      'z_required: string',
    ]);
  });
  it('makes everything optional on update; computed ones never', () => {
    expect(updateFields(relation, context()).map((f) => `${f.name}${f.optional ? '?' : ''}: ${f.type}`)).toEqual([
      'by_default?: number',
      'computed?: never',
      'defaulted?: number',
      'id?: never',
      'maybe?: string | null',
      'z_required?: string',
    ]);
  });
});
