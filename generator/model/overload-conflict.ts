import { inputArgs } from './project-meta.js';
import { compareCodePoints } from './sort.js';
import type { FunctionModel } from './types.js';

const advice = 'Try renaming the parameters or the function itself in the database so function overloading can be resolved';

/**
 * PostgREST's "Could not choose the best candidate function" for one overload of a group
 * (PGRST203), worded as `supabase gen types` words it in the overload's return type, or null
 * when PostgREST can choose. Two cases, postgres-meta's: a call without arguments when another
 * overload's only parameter is unnamed with a default (it names that overload by its return
 * type), and one named parameter that another overload has under the same name with another
 * type. postgres-meta lists the second case's overloads by type OID; the model has no OIDs, so
 * they are listed by type name, which is the same order for the types of its test schema.
 */
export function overloadConflict(fn: FunctionModel, overloads: readonly FunctionModel[]): string | null {
  if (overloads.length <= 1) return null;
  const inputs = inputArgs(fn);
  const others = overloads.filter((other) => other !== fn);
  if (inputs.length === 0) {
    const defaulted = others.find((other) => {
      const [only, ...rest] = inputArgs(other);
      return only !== undefined && rest.length === 0 && only.name === '' && only.hasDefault;
    });
    if (defaulted) {
      return `Could not choose the best candidate function between: ${fn.schema}.${fn.name}(), ${fn.schema}.${fn.name}( => ${defaulted.returnType.name}). ${advice}`;
    }
  }
  const [named, ...more] = inputs;
  if (named === undefined || more.length > 0 || named.name === '') return null;
  const sameName = others.filter((other) => {
    const [only, ...rest] = inputArgs(other);
    return only !== undefined && rest.length === 0 && only.name === named.name && (only.type.schema !== named.type.schema || only.type.name !== named.type.name);
  });
  if (sameName.length === 0) return null;
  const list = [fn, ...sameName]
    .map((overload) => inputArgs(overload)[0]?.type.name ?? '')
    .sort(compareCodePoints)
    .map((type) => `${fn.schema}.${fn.name}(${named.name} => ${type})`);
  return `Could not choose the best candidate function between: ${list.join(', ')}. ${advice}`;
}
