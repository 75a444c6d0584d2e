import type { RelationModel } from '../../model/types.js';

/**
 * The tag that groups a table's or view's operations. Swagger UI drops every operation of a
 * tag named `__proto__` or `constructor` from the docs page (it looks tags up in plain
 * JavaScript objects on the way), so a relation named like any member of Object.prototype is
 * tagged with its kind appended; every other tag is the relation's name as it is.
 */
export function relationTag(relation: Pick<RelationModel, 'name' | 'kind'>): string {
  return Object.hasOwn(Object.prototype, relation.name) ? `${relation.name} (${relation.kind === 'table' ? 'table' : 'view'})` : relation.name;
}
