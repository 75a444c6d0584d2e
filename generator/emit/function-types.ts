import { overloadConflict } from '../model/overload-conflict.js';
import { inputArgs, outputArgs, resultColumns } from '../model/project-meta.js';
import { resolveDomain } from '../model/domains.js';
import { sortByKey } from '../model/sort.js';
import { typedRelation } from '../model/typed-relation.js';
import type { FunctionModel, RelationModel } from '../model/types.js';
import { stringLiteral } from './names.js';
import { objectType, rowFields, type Field } from './row-types.js';
import { tsType, type TypeContext } from './ts-types.js';

/**
 * `{ Args: ...; Returns: ... }` of one function as `supabase gen types typescript`
 * writes it: arguments by name (optional when defaulted), `Args: never` without
 * arguments, table-returning functions with `SetofOptions`.
 */
function functionSignature(fn: FunctionModel, context: TypeContext, indent: string, overloads: readonly FunctionModel[]): string {
  const inner = `${indent}  `;
  // A callable function's only unnamed parameter is its single one, typed under the key "".
  const args = sortByKey(inputArgs(fn), (arg) => [arg.name]);
  const argFields: Field[] = args.map((arg) => ({ name: arg.name, type: tsType(arg.type, context), optional: arg.hasDefault }));
  const setof = setofTarget(fn, context);
  const source = rowSource(fn, context);
  const conflict = overloadConflict(fn, overloads);
  const returns = conflict !== null
    ? `{ error: true } & ${stringLiteral(conflict)}`
    : source !== null && setof === null && args[0]?.name === ''
      ? `{ error: true } & ${stringLiteral(`the function ${fn.schema}.${fn.name} with parameter or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache`)}`
      : returnType(fn, context, inner, setof !== null && fn.rows <= 1);
  const lines = [
    `${inner}Args: ${argFields.length === 0 ? 'never' : objectType(argFields, inner)};\n`,
    `${inner}Returns: ${returns};\n`,
  ];
  if (setof) {
    lines.push(
      `${inner}SetofOptions: {\n` +
        `${inner}  from: ${stringLiteral(source ?? '*')};\n` +
        `${inner}  to: ${stringLiteral(setof)};\n` +
        `${inner}  isOneToOne: ${fn.rows <= 1};\n` +
        `${inner}  isSetofReturn: ${fn.returnsSet};\n` +
        `${inner}};\n`,
    );
  }
  return `{\n${lines.join('')}${indent}}`;
}

/**
 * The relation whose row is the function's only parameter, named as \`format_type\` names it
 * on a default search path: the \`from\` of a computed relationship's \`SetofOptions\`.
 */
function rowSource(fn: FunctionModel, context: TypeContext): string | null {
  const [only] = fn.args;
  if (fn.args.length !== 1 || !only || only.type.kind !== 'composite') return null;
  const relation = context.model.relations.find((r) => r.schema === only.type.schema && r.name === only.type.name);
  if (!relation) return null;
  return relation.schema === 'public' ? relation.name : `${relation.schema}.${relation.name}`;
}

/**
 * Overloads as a union, laid out as TypeScript's formatter lays unions out: each
 * `| {` at `unionIndent`, its members two spaces further, its closing brace back at
 * `unionIndent`. A single signature is printed as is at `indent`.
 */
export function functionSignatures(
  overloads: readonly FunctionModel[],
  context: TypeContext,
  indent: string,
  unionIndent: string,
): string {
  if (overloads.length === 1) return functionSignature(overloads[0] as FunctionModel, context, indent, overloads);
  return overloads.map((fn) => `\n${unionIndent}| ${functionSignature(fn, context, unionIndent, overloads)}`).join('');
}

/**
 * `oneRow`: a set of at most one row by its `ROWS` estimate, typed as that row (postgrest-js
 * restores the array from `isOneToOne`). Rows of a table or view of the function's schema are
 * typed by their columns, not as its `Row`: `/rpc` sends the columns only, never the computed
 * fields `Row` also lists (as `supabase gen types` types them).
 */
function returnType(fn: FunctionModel, context: TypeContext, indent: string, oneRow: boolean): string {
  const outputs = resultColumns(fn);
  // An object type is one type whatever unions its properties hold; other unions need parentheses.
  const many = (type: string): string => (fn.returnsSet && !oneRow ? `${type.includes(' | ') && !type.startsWith('{') ? `(${type})` : type}[]` : type);
  const relation = returnedRow(fn, context);
  if (relation) return many(objectType(rowFields(relation, context), indent));
  if (outputs.length > 0) {
    const fields = sortByKey(outputs, (column) => [column.name]).map((column) => ({
      name: column.name,
      type: tsType(column.type, context),
      optional: false,
    }));
    return many(objectType(fields, indent));
  }
  return many(tsType(fn.returnType, context));
}

/** The table or view of the function's own schema whose rows it returns. */
function returnedRow(fn: FunctionModel, context: TypeContext): RelationModel | null {
  if (outputArgs(fn).length > 0) return null;
  const type = resolveDomain(fn.returnType);
  if (type.kind !== 'composite') return null;
  const relation = typedRelation(context.model, type);
  return relation && relation.schema === fn.schema ? relation : null;
}

/**
 * What a function returns rows of, for `SetofOptions`: a table or view of its schema, or any
 * other composite type (a standalone `CREATE TYPE ... AS`), by its bare name as postgres-meta
 * names it, so postgrest-js can select its fields.
 */
function setofTarget(fn: FunctionModel, context: TypeContext): string | null {
  const relation = returnedRow(fn, context);
  if (relation) return relation.name;
  const type = resolveDomain(fn.returnType);
  return outputArgs(fn).length === 0 && type.kind === 'composite' ? type.name : null;
}
