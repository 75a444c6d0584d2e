import type { ColumnModel, FunctionModel, RelationModel } from '../model/types.js';

/**
 * One change between two API descriptions, classed by what it does to a client that
 * already talks to the API: breaking when a request it sends today can fail or answer
 * different data, compatible otherwise. docs/migrations.md has the rule behind each kind.
 */

export type Severity = 'breaking' | 'compatible';

export type ApiChangeKind =
  | 'endpoint_added'
  | 'endpoint_removed'
  | 'endpoint_renamed'
  | 'endpoint_capability_changed'
  | 'column_added'
  | 'column_removed'
  | 'column_renamed'
  | 'column_type_changed'
  | 'column_nullability_changed'
  | 'column_default_changed'
  | 'key_changed'
  | 'foreign_key_added'
  | 'foreign_key_removed'
  | 'computed_field_added'
  | 'computed_field_removed'
  | 'rls_changed'
  | 'policy_added'
  | 'policy_removed'
  | 'policy_changed'
  | 'grant_added'
  | 'grant_revoked'
  | 'function_added'
  | 'function_removed'
  | 'function_renamed'
  | 'function_parameter_added'
  | 'function_parameter_removed'
  | 'function_parameter_renamed'
  | 'function_parameter_type_changed'
  | 'function_parameter_default_changed'
  | 'function_return_changed'
  | 'function_volatility_changed'
  | 'function_security_changed'
  | 'enum_added'
  | 'enum_removed'
  | 'enum_value_added'
  | 'enum_value_removed';

export interface ApiChange {
  readonly kind: ApiChangeKind;
  readonly severity: Severity;
  /** What changed: `public.todos`, `public.todos.title`, `public.add_numbers(a integer)`. */
  readonly target: string;
  /** One line saying what changed. */
  readonly message: string;
  /** Why it is classed so, from the client's side. */
  readonly reason: string;
  /** The full definition before and after (a policy, a column, a signature); null where there is none. */
  readonly before: string | null;
  readonly after: string | null;
}

/**
 * What a change is to, as the models hold it on each side (null where it does not exist), so the report
 * can find its endpoints, generated types and the code that uses it without parsing the target back.
 */
export type ChangeSubject =
  | {
      readonly kind: 'relation';
      readonly base: RelationModel | null;
      readonly head: RelationModel | null;
      /** A column change: the column on each side (a rename pairs the two names). */
      readonly column: { readonly base: ColumnModel | null; readonly head: ColumnModel | null } | null;
    }
  | { readonly kind: 'function'; readonly base: FunctionModel | null; readonly head: FunctionModel | null }
  | { readonly kind: 'enum'; readonly schema: string; readonly name: string };

/** A change with what it is to. */
export interface SubjectChange {
  readonly change: ApiChange;
  readonly subject: ChangeSubject;
}

export function apiChange(kind: ApiChangeKind, severity: Severity, target: string, message: string, reason: string, before: string | null, after: string | null): ApiChange {
  return { kind, severity, target, message, reason, before, after };
}
