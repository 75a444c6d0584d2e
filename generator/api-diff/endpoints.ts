import { apiRoles } from '../introspect/catalog-queries.js';
import { resolveDomain } from '../model/domains.js';
import type { FunctionModel, RelationModel, SchemaModel, TypeRef } from '../model/types.js';
import type { ChangeSubject } from './api-change.js';

/**
 * The data API endpoints a change is felt at, as a client calls them (`GET /rest/v1/tickets`), without
 * the host's `/v1/<ref>` prefix. A relation offers the methods its kind and grants allow to any API
 * role (a view without insert has no POST); a function POST, and GET unless it is volatile. A schema
 * other than the default profile is named as the `Accept-Profile`/`Content-Profile` it needs.
 */
export function changeEndpoints(subject: ChangeSubject, base: SchemaModel, head: SchemaModel): string[] {
  const found: string[] = [];
  if (subject.kind === 'relation') {
    if (subject.base) found.push(...relationEndpoints(subject.base, base), ...rowFunctionEndpoints(subject.base, base));
    if (subject.head && (subject.base === null || subject.head.name !== subject.base.name || subject.head.schema !== subject.base.schema)) {
      found.push(...relationEndpoints(subject.head, head));
    }
  } else if (subject.kind === 'function') {
    if (subject.base) found.push(...functionEndpoints(subject.base, base));
    if (subject.head && (subject.base === null || subject.head.name !== subject.base.name)) found.push(...functionEndpoints(subject.head, head));
  } else {
    const model = base.enums.some((e) => e.schema === subject.schema && e.name === subject.name) ? base : head;
    const isEnum = (type: TypeRef): boolean => {
      const resolved = resolveDomain(type);
      const element = resolved.kind === 'array' && resolved.element ? resolveDomain(resolved.element) : resolved;
      return element.kind === 'enum' && element.schema === subject.schema && element.name === subject.name;
    };
    for (const relation of model.relations) if (relation.columns.some((c) => isEnum(c.type))) found.push(...relationEndpoints(relation, model));
    for (const fn of model.functions) if (fn.args.some((a) => isEnum(a.type)) || isEnum(fn.returnType)) found.push(...functionEndpoints(fn, model));
  }
  return [...new Set(found)];
}

function profile(schema: string, model: SchemaModel): string {
  return schema === (model.schemas[0] ?? 'public') ? '' : ` (profile ${schema})`;
}

export function relationEndpoints(relation: RelationModel, model: SchemaModel): string[] {
  const granted = (privilege: 'select' | 'insert' | 'update' | 'delete'): boolean => apiRoles.some((role) => relation.grants[role][privilege]);
  const methods = [
    ...(granted('select') ? ['GET'] : []),
    ...(relation.updatable.insert && granted('insert') ? ['POST'] : []),
    ...(relation.updatable.update && granted('update') ? ['PATCH'] : []),
    ...(relation.updatable.delete && granted('delete') ? ['DELETE'] : []),
  ];
  return methods.map((method) => `${method} /rest/v1/${relation.name}${profile(relation.schema, model)}`);
}

export function functionEndpoints(fn: FunctionModel, model: SchemaModel): string[] {
  const methods = fn.volatility === 'volatile' ? ['POST'] : ['GET', 'POST'];
  return methods.map((method) => `${method} /rest/v1/rpc/${fn.name}${profile(fn.schema, model)}`);
}

/** RPC functions answering rows of the relation: a change to its columns changes what they answer. */
function rowFunctionEndpoints(relation: RelationModel, model: SchemaModel): string[] {
  return model.functions
    .filter((fn) => {
      const type = resolveDomain(fn.returnType);
      return type.kind === 'composite' && type.schema === relation.schema && type.name === relation.name;
    })
    .flatMap((fn) => functionEndpoints(fn, model));
}
