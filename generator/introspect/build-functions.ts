import type { PgProc } from 'pg-introspection';
import { isCallable } from '../model/callable.js';
import { sortByKey } from '../model/sort.js';
import type { ArgMode, FunctionArgModel, FunctionModel, Volatility } from '../model/types.js';
import type { RawCatalog } from './raw-catalog.js';
import type { TypeRefs } from './type-refs.js';

const modes: Readonly<Record<string, ArgMode>> = { i: 'in', o: 'out', b: 'inout', v: 'variadic', t: 'table' };
const volatilities: Readonly<Record<string, Volatility>> = { i: 'immutable', s: 'stable', v: 'volatile' };
/** Functions that cannot be called over HTTP: triggers and event triggers. */
const hiddenReturnTypes = new Set(['trigger', 'event_trigger']);

function buildArgs(proc: PgProc, types: TypeRefs): FunctionArgModel[] {
  const typeIds = proc.proallargtypes ?? proc.proargtypes ?? [];
  const argModes = proc.proargmodes ?? typeIds.map(() => 'i');
  const names = proc.proargnames ?? [];
  const inputs = argModes.filter((mode) => mode === 'i' || mode === 'b' || mode === 'v').length;
  const firstDefault = inputs - (proc.pronargdefaults ?? 0);
  let inputIndex = 0;
  return typeIds.map((typeId, index): FunctionArgModel => {
    const mode = modes[argModes[index] ?? 'i'] ?? 'in';
    const isInput = mode === 'in' || mode === 'inout' || mode === 'variadic';
    const hasDefault = isInput && inputIndex >= firstDefault;
    if (isInput) inputIndex++;
    return { name: names[index] ?? '', type: types.ref(typeId), mode, hasDefault };
  });
}

export function buildFunctions(raw: RawCatalog, types: TypeRefs): FunctionModel[] {
  const exposed = new Set(raw.schemas);
  const texts = new Map(raw.functionTexts.map((row) => [row.id, row]));
  const grants = new Map(raw.functionGrants.map((row) => [`${row.id}:${row.role}`, row.can_execute]));
  const functions = raw.introspection.procs
    .filter((proc) => (proc.prokind ?? 'f') === 'f')
    .filter((proc) => exposed.has(proc.getNamespace()?.nspname ?? ''))
    .filter((proc) => !hiddenReturnTypes.has(proc.getReturnType()?.typname ?? ''))
    .map((proc): FunctionModel => {
      const text = texts.get(proc._id);
      return {
        schema: proc.getNamespace()?.nspname ?? '',
        name: proc.proname,
        identityArguments: text?.identity_arguments ?? '',
        args: buildArgs(proc, types),
        returnType: types.ref(proc.prorettype),
        returnsSet: proc.proretset,
        rows: proc.proretset ? (proc.prorows ?? 0) : 0,
        volatility: volatilities[proc.provolatile ?? 'v'] ?? 'volatile',
        securityDefiner: proc.prosecdef === true,
        language: text?.language ?? '',
        comment: proc.getDescription() ?? null,
        execute: {
          anon: grants.get(`${proc._id}:anon`) ?? false,
          authenticated: grants.get(`${proc._id}:authenticated`) ?? false,
          service_role: grants.get(`${proc._id}:service_role`) ?? false,
        },
      };
    })
    .filter(isCallable);
  return sortByKey(functions, (fn) => [fn.schema, fn.name, fn.identityArguments]);
}
