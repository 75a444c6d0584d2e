import { functionSignatures } from '../emit/function-types.js';
import { insertFields, isWritable, rowFields, updateFields, type Field } from '../emit/row-types.js';
import { tsType, type TypeContext } from '../emit/ts-types.js';
import { inputArgs } from '../model/project-meta.js';
import { sortByKey } from '../model/sort.js';
import type { FunctionModel, RelationModel, SchemaModel } from '../model/types.js';
import type { ChangeSubject } from './api-change.js';

/**
 * The generated TypeScript types (`database.types.ts`) a change alters, each as one line a reviewer can
 * search the client code for: `Database['public']['Tables']['tickets']['Row'].title removed`. Computed
 * with the emitters' own field builders, so the lines say what `gantry gen` writes. Empty when the
 * types do not change (numeric → integer is `number` on both sides).
 */
export function changedTypes(subject: ChangeSubject, base: SchemaModel, head: SchemaModel): string[] {
  const contexts = { base: typeContext(base), head: typeContext(head) };
  if (subject.kind === 'enum') {
    const [before, after] = [base, head].map((m) => m.enums.find((e) => e.schema === subject.schema && e.name === subject.name));
    const union = (values: readonly string[] | undefined): string | null => (values === undefined ? null : values.map((v) => JSON.stringify(v)).join(' | '));
    return changeLine(access([subject.schema, 'Enums', subject.name]), union(before?.values), union(after?.values));
  }
  if (subject.kind === 'function') return functionTypes(subject.base, subject.head, contexts);
  const { base: was, head: now } = subject;
  if (subject.column === null) {
    if (was === null || now === null) {
      const relation = (was ?? now)!;
      return [`${access([relation.schema, section(relation), relation.name])} ${was === null ? 'added' : 'removed'}`];
    }
    return was.name === now.name && section(was) === section(now) ? [] : [`${access([was.schema, section(was), was.name])} → ${access([now.schema, section(now), now.name])}`];
  }
  const [from, to] = [subject.column.base?.name ?? null, subject.column.head?.name ?? null];
  const relation = (now ?? was)!;
  const lines: string[] = [];
  for (const [part, fields] of [['Row', rowFields], ['Insert', insertFields], ['Update', updateFields]] as const) {
    const side = (r: RelationModel | null, context: TypeContext, name: string | null): Field | null =>
      r === null || name === null || (part !== 'Row' && !isWritable(r)) ? null : fields(r, context).find((f) => f.name === name) ?? null;
    const before = side(was, contexts.base, from);
    const after = side(now, contexts.head, to);
    lines.push(...fieldChange(`${access([relation.schema, section(relation), relation.name, part])}`, before, after));
  }
  return lines;
}

/** `Database['public']['Tables']['tickets']['Row']`, as the issue and a reviewer write it. */
function access(keys: readonly string[]): string {
  return `Database${keys.map((k) => `['${k.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`).join('')}`;
}

function section(relation: RelationModel): 'Tables' | 'Views' {
  return relation.kind === 'table' ? 'Tables' : 'Views';
}

function typeContext(model: SchemaModel): TypeContext {
  return { model, uses: () => undefined };
}

function fieldText(field: Field): string {
  return `${field.name}${field.optional ? '?' : ''}: ${field.type}`;
}

function fieldChange(path: string, before: Field | null, after: Field | null): string[] {
  if (before === null && after === null) return [];
  if (before === null) return [`${path}.${fieldText(after!)} added`];
  if (after === null) return [`${path}.${before.name} removed`];
  return fieldText(before) === fieldText(after) ? [] : [`${path}.${fieldText(before)} → ${fieldText(after)}`];
}

function changeLine(path: string, before: string | null, after: string | null): string[] {
  if (before === after) return [];
  if (before === null) return [`${path} added: ${after}`];
  if (after === null) return [`${path} removed`];
  return [`${path}: ${before} → ${after}`];
}

function functionTypes(was: FunctionModel | null, now: FunctionModel | null, contexts: { base: TypeContext; head: TypeContext }): string[] {
  const fn = (now ?? was)!;
  if (was === null || now === null) return [`${access([fn.schema, 'Functions', fn.name])} ${was === null ? 'added' : 'removed'}${overloadNote(fn)}`];
  const path = access([now.schema, 'Functions', now.name]);
  const lines = was.name === now.name ? [] : [`${access([was.schema, 'Functions', was.name])} → ${path}`];
  const args = (f: FunctionModel, context: TypeContext): Field[] =>
    sortByKey(inputArgs(f), (a) => [a.name]).map((a) => ({ name: a.name, type: tsType(a.type, context), optional: a.hasDefault }));
  const [before, after] = [args(was, contexts.base), args(now, contexts.head)];
  for (const name of [...new Set([...before, ...after].map((f) => f.name))]) {
    lines.push(...fieldChange(`${path}['Args']`, before.find((f) => f.name === name) ?? null, after.find((f) => f.name === name) ?? null));
  }
  lines.push(...changeLine(`${path}['Returns']`, returnsText(was, contexts.base), returnsText(now, contexts.head)));
  return lines;
}

function overloadNote(fn: FunctionModel): string {
  return fn.identityArguments === '' ? '' : ` (overload (${fn.identityArguments}))`;
}

/** The `Returns:` of the function's generated signature, on one line. */
function returnsText(fn: FunctionModel, context: TypeContext): string {
  const signature = functionSignatures([fn], context, '', '');
  const returns = /\n {2}Returns: ([\s\S]*?);\n(?: {2}SetofOptions|\}$)/.exec(signature)?.[1] ?? signature;
  return returns.replace(/\s*\n\s*/g, ' ').replace(/\{ /g, '{ ').trim();
}
