import { describe, expect, it } from 'vitest';
import { isCallable } from '../../../generator/model/callable.js';
import type { ArgMode, FunctionModel, TypeRef } from '../../../generator/model/types.js';
import { int4, text, type } from './model-fixtures.js';

function fn(...args: Array<[name: string, type: TypeRef, mode?: ArgMode]>): FunctionModel {
  return {
    schema: 'public', name: 'f', identityArguments: '', returnType: int4, returnsSet: false, rows: 0, volatility: 'volatile',
    securityDefiner: false, language: 'sql', comment: null, execute: { anon: true, authenticated: true, service_role: true },
    args: args.map(([name, argType, mode]) => ({ name, type: argType, mode: mode ?? 'in', hasDefault: false })),
  };
}

describe('isCallable (PostgREST schema cache rule)', () => {
  it('takes functions whose input parameters are all named, or none', () => {
    expect(isCallable(fn())).toBe(true);
    expect(isCallable(fn(['a', int4], ['b', text]))).toBe(true);
    // Unnamed OUT parameters are result columns, not arguments.
    expect(isCallable(fn(['a', int4], ['', text, 'out']))).toBe(true);
  });

  it('takes a lone unnamed bytea, json, jsonb, text or xml parameter', () => {
    for (const name of ['bytea', 'json', 'jsonb', 'text', 'xml']) expect(isCallable(fn(['', type(name)]))).toBe(true);
    expect(isCallable(fn(['', text], ['x', int4, 'out']))).toBe(true);
  });

  it('leaves out any other unnamed parameter', () => {
    expect(isCallable(fn(['', int4]))).toBe(false);
    expect(isCallable(fn(['', type('_text', 'array')]))).toBe(false);
    expect(isCallable(fn(['', type('text', 'domain', { schema: 'public', name: 'label' })]))).toBe(false);
    expect(isCallable(fn(['', text], ['', text]))).toBe(false);
    expect(isCallable(fn(['a', int4], ['', text]))).toBe(false);
    expect(isCallable(fn(['', type('films', 'composite', { schema: 'public' })]))).toBe(false);
  });
});
