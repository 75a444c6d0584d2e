import type { Introspection } from 'pg-introspection';
import type {
  ColumnTextRow,
  DomainCastRow,
  FunctionGrantRow,
  FunctionTextRow,
  PolicyRow,
  TableGrantRow,
  TypeTextRow,
  ViewRuleRow,
} from './catalog-queries.js';

/** Everything read from one database snapshot, before it becomes a SchemaModel. */
export interface RawCatalog {
  readonly schemas: readonly string[];
  readonly introspection: Introspection;
  readonly typeTexts: readonly TypeTextRow[];
  readonly columnTexts: readonly ColumnTextRow[];
  readonly policies: readonly PolicyRow[];
  readonly tableGrants: readonly TableGrantRow[];
  readonly functionTexts: readonly FunctionTextRow[];
  readonly functionGrants: readonly FunctionGrantRow[];
  readonly viewRules: readonly ViewRuleRow[];
  readonly domainCasts: readonly DomainCastRow[];
}
