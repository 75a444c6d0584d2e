import type { ComputedModel, FunctionModel, RelationModel, SchemaModel } from './types.js';

/** A computed relationship: the function and the relation whose rows it returns. */
export interface ComputedRelationship {
  readonly computed: ComputedModel;
  readonly target: RelationModel;
  /** `RETURNS t` (no set) or `ROWS 1` (PostgREST's `not proretset or prorows = 1`). */
  readonly toOne: boolean;
}

/** The exposed relation whose row type the function returns, if any. */
export function returnedRelation(model: SchemaModel, computed: ComputedModel): RelationModel | null {
  const type = computed.returnType;
  if (type.kind !== 'composite') return null;
  return model.relations.find((r) => r.schema === type.schema && r.name === type.name) ?? null;
}

function ofSource(model: SchemaModel, relation: RelationModel): ComputedModel[] {
  return model.computed.filter((c) => c.sourceSchema === relation.schema && c.sourceName === relation.name);
}

/** Computed fields of a relation: functions over its row type that return one value (not rows of a relation, not a set). */
export function computedFields(model: SchemaModel, relation: RelationModel): ComputedModel[] {
  return ofSource(model, relation).filter((c) => !c.returnsSet && returnedRelation(model, c) === null);
}

export function computedRelationships(model: SchemaModel, relation: RelationModel): ComputedRelationship[] {
  const found: ComputedRelationship[] = [];
  for (const computed of ofSource(model, relation)) {
    const target = returnedRelation(model, computed);
    if (target) found.push({ computed, target, toOne: !computed.returnsSet || computed.rows === 1 });
  }
  return found;
}

/**
 * Functions `/rpc` cannot call (an unnamed row parameter) that `supabase gen types` still
 * lists, so postgrest-js finds computed relationships by their `SetofOptions.from`; in the
 * shape of a callable function.
 */
export function typedOnlyFunctions(model: SchemaModel): FunctionModel[] {
  return model.computed
    .filter((c) => c.argName === '')
    .map((c) => ({
      schema: c.schema,
      name: c.name,
      // As pg_get_function_identity_arguments prints it on the default search path: overloads sort by it.
      identityArguments: c.argType.sql.startsWith('public.') ? c.argType.sql.slice('public.'.length) : c.argType.sql,
      args: [{ name: '', type: c.argType, mode: 'in', hasDefault: false }],
      returnType: c.returnType,
      returnsSet: c.returnsSet,
      rows: c.rows,
      volatility: 'volatile',
      securityDefiner: false,
      language: '',
      comment: c.comment,
      execute: { anon: false, authenticated: false, service_role: false },
    }));
}

/** Computed columns of a relation's Row in `supabase gen types`: functions whose identity arguments read as the bare table name. */
export function typedComputedColumns(model: SchemaModel, relation: RelationModel): ComputedModel[] {
  return ofSource(model, relation).filter((c) => c.argName === '' && c.schema === relation.schema && relation.schema === 'public');
}
