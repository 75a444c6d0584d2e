import { describe, expect, it } from 'vitest';
import { overloadConflict } from '../../../generator/model/overload-conflict.js';
import type { FunctionModel, TypeRef } from '../../../generator/model/types.js';
import { int4, text, type } from './model-fixtures.js';

const advice = 'Try renaming the parameters or the function itself in the database so function overloading can be resolved';

function fn(returnType: TypeRef, ...args: Array<[name: string, type: TypeRef, hasDefault?: boolean]>): FunctionModel {
  return {
    schema: 'public', name: 'f', identityArguments: '', returnType, returnsSet: false, rows: 0, volatility: 'volatile',
    securityDefiner: false, language: 'sql', comment: null, execute: { anon: true, authenticated: true, service_role: true },
    args: args.map(([name, argType, hasDefault]) => ({ name, type: argType, mode: 'in', hasDefault: hasDefault ?? false })),
  };
}

describe('overloadConflict (PGRST203 as supabase gen types types it)', () => {
  it('has no conflict for a single function or overloads with distinct parameter names', () => {
    const none = fn(type('void', 'pseudo'));
    expect(overloadConflict(none, [none])).toBeNull();
    const overloads = [none, fn(int4, ['a', text]), fn(text, ['b', int4])];
    expect(overloads.map((overload) => overloadConflict(overload, overloads))).toEqual([null, null, null]);
  });

  it('reports the call without arguments when another overload has a lone unnamed defaulted parameter, named by its return type', () => {
    const none = fn(int4);
    const defaulted = fn(text, ['', text, true]);
    expect(overloadConflict(none, [none, defaulted])).toBe(`Could not choose the best candidate function between: public.f(), public.f( => text). ${advice}`);
    expect(overloadConflict(defaulted, [none, defaulted])).toBeNull();
  });

  it('reports one parameter name with several types, listing every such overload', () => {
    const none = fn(type('void', 'pseudo'));
    const byText = fn(int4, ['a', text]);
    const byInt = fn(text, ['a', int4]);
    const message = `Could not choose the best candidate function between: public.f(a => int4), public.f(a => text). ${advice}`;
    const overloads = [none, byText, byInt];
    expect(overloads.map((overload) => overloadConflict(overload, overloads))).toEqual([null, message, message]);
  });
});
