import { apiRoles } from '../introspect/catalog-queries.js';
import type { FunctionArgModel, FunctionModel } from '../model/types.js';
import { apiChange as change, type ApiChange, type ApiChangeKind, type Severity } from './api-change.js';
import {
  displayName,
  functionDefinition,
  functionParameters,
  functionResultColumns,
  parameterDefinition,
  returnDefinition,
} from './definitions.js';
import { isWidening } from './type-widening.js';

/** `public.add_numbers(a integer, b integer)`: the name and identity arguments PostgreSQL tells overloads apart by. */
export function functionTarget(fn: FunctionModel): string {
  return `${displayName(fn.schema, fn.name)}(${fn.identityArguments})`;
}

export function functionAdded(head: FunctionModel): ApiChange {
  return change('function_added', 'compatible', functionTarget(head), 'RPC function added', 'a new endpoint: no existing request uses it', null, functionDefinition(head));
}

export function functionRemoved(base: FunctionModel): ApiChange {
  return change('function_removed', 'breaking', functionTarget(base), 'RPC function removed', 'every call to it now fails (PGRST202)', functionDefinition(base), null);
}

/** A function renamed (declared by the migration): calls by the old name fail; its other changes follow. */
export function functionRenamed(base: FunctionModel, head: FunctionModel): ApiChange[] {
  return [
    change('function_renamed', 'breaking', functionTarget(base), `RPC function renamed: ${base.name} → ${head.name}`, `every call to ${base.name} now fails (PGRST202)`, functionDefinition(base), functionDefinition({ ...base, name: head.name, schema: head.schema })),
    ...diffFunction(base, head),
  ];
}

/** PostgREST passes arguments by name; an unnamed one is known by its position. */
function argKey(arg: FunctionArgModel, index: number): string {
  return arg.name === '' ? `$${index + 1}` : arg.name;
}

/** The changes to one RPC function present on both sides (matched by name, overloads by identity arguments). */
export function diffFunction(base: FunctionModel, head: FunctionModel): ApiChange[] {
  const target = functionTarget(base);
  const [from, to] = [functionDefinition(base), functionDefinition(head)];
  const at = (kind: ApiChangeKind, severity: Severity, message: string, reason: string): ApiChange => change(kind, severity, target, message, reason, from, to);
  return [
    ...diffParameters(base, head, at),
    ...diffReturn(base, head, at),
    ...diffVolatility(base, head, at),
    ...(base.securityDefiner === head.securityDefiner
      ? []
      : [at('function_security_changed', 'breaking', `now SECURITY ${head.securityDefiner ? 'DEFINER' : 'INVOKER'}`, head.securityDefiner ? "it now runs with its owner's rights: callers may see or change rows they could not" : "it now runs with the caller's rights: calls may see fewer rows or fail (42501)")]),
    ...diffExecute(target, base, head),
  ];
}

type At = (kind: ApiChangeKind, severity: Severity, message: string, reason: string) => ApiChange;

function diffParameters(base: FunctionModel, head: FunctionModel, at: At): ApiChange[] {
  const before = functionParameters(base).map((arg, i) => ({ key: argKey(arg, i), arg, index: i }));
  const after = functionParameters(head).map((arg, i) => ({ key: argKey(arg, i), arg, index: i }));
  const removed = before.filter((b) => !after.some((a) => a.key === b.key));
  const added = after.filter((a) => !before.some((b) => b.key === a.key));
  const changes: ApiChange[] = [];
  const renames = new Map<string, string>();
  for (const gone of removed) {
    // A rename keeps the position and the type; PostgREST matches by name, so it still breaks callers.
    const twin = added.find((a) => a.index === gone.index && a.arg.type.sql === gone.arg.type.sql && !renames.has(a.key));
    if (twin) {
      renames.set(twin.key, gone.key);
      changes.push(at('function_parameter_renamed', 'breaking', `parameter renamed: ${gone.key} → ${twin.key}`, `a call that passes ${gone.key} now fails (PGRST202)`));
    } else {
      changes.push(at('function_parameter_removed', 'breaking', `parameter removed: ${parameterDefinition(gone.arg)}`, `a call that passes ${gone.key} now fails (PGRST202)`));
    }
  }
  for (const { key, arg } of added) {
    if (renames.has(key)) continue;
    changes.push(
      arg.hasDefault
        ? at('function_parameter_added', 'compatible', `optional parameter added: ${parameterDefinition(arg)}`, 'calls that omit it still work')
        : at('function_parameter_added', 'breaking', `required parameter added: ${parameterDefinition(arg)}`, `a call without ${key} now fails (PGRST202)`),
    );
  }
  for (const { key, arg } of before) {
    const now = after.find((a) => a.key === key)?.arg;
    if (!now) continue;
    if (now.type.sql !== arg.type.sql) {
      changes.push(
        isWidening(arg.type, now.type)
          ? at('function_parameter_type_changed', 'compatible', `parameter ${key}: ${arg.type.sql} → ${now.type.sql} (widened)`, 'every value accepted before is still accepted')
          : at('function_parameter_type_changed', 'breaking', `parameter ${key}: ${arg.type.sql} → ${now.type.sql}`, 'values accepted before may now be refused or read differently'),
      );
    }
    if (now.hasDefault !== arg.hasDefault) {
      changes.push(
        now.hasDefault
          ? at('function_parameter_default_changed', 'compatible', `parameter ${key} now optional`, 'calls that pass it still work')
          : at('function_parameter_default_changed', 'breaking', `parameter ${key} now required`, `a call without ${key} now fails (PGRST202)`),
      );
    }
  }
  return changes;
}

function diffReturn(base: FunctionModel, head: FunctionModel, at: At): ApiChange[] {
  const [from, to] = [returnDefinition(base), returnDefinition(head)];
  if (from === to) return [];
  const message = `returns ${from} → ${to}`;
  const typeKept = base.returnType.sql === head.returnType.sql || isWidening(base.returnType, head.returnType);
  const columnsKept = functionResultColumns(base).every((column) => {
    const now = functionResultColumns(head).find((c) => c.name === column.name);
    return now !== undefined && (now.type.sql === column.type.sql || isWidening(column.type, now.type));
  });
  return base.returnsSet === head.returnsSet && typeKept && columnsKept
    ? [at('function_return_changed', 'compatible', message, 'every field answered before is still answered, as before')]
    : [at('function_return_changed', 'breaking', message, 'clients read a different shape or type from the answer')];
}

function diffVolatility(base: FunctionModel, head: FunctionModel, at: At): ApiChange[] {
  if (base.volatility === head.volatility) return [];
  const message = `volatility ${base.volatility} → ${head.volatility}`;
  return head.volatility === 'volatile'
    ? [at('function_volatility_changed', 'breaking', message, 'a GET call now fails (PGRST101): a volatile function runs only by POST')]
    : [at('function_volatility_changed', 'compatible', message, 'POST calls still work; GET calls are now allowed too')];
}

function diffExecute(target: string, base: FunctionModel, head: FunctionModel): ApiChange[] {
  return apiRoles.flatMap((role) => {
    const [had, has] = [base.execute[role], head.execute[role]];
    if (had === has) return [];
    const statement = `EXECUTE ON FUNCTION ${target} ${has ? 'TO' : 'FROM'} ${role}`;
    return [
      has
        ? change('grant_added', 'compatible', target, `GRANT ${statement}`, `${role} may now call it`, null, `GRANT ${statement}`)
        : change('grant_revoked', 'breaking', target, `REVOKE ${statement}`, `calls as ${role} now fail (42501)`, `GRANT EXECUTE ON FUNCTION ${target} TO ${role}`, null),
    ];
  });
}
