import type {
  ColumnMeta, FunctionArgMeta, FunctionMeta, ProjectMeta, RelationKind, RelationMeta, TableMeta,
} from '../../runtime/rest/metadata.js';

/** Metadata for fixture-schema.sql, written the way the generator emits it. */

function col(name: string, pgType: string, extra: Partial<ColumnMeta> = {}): ColumnMeta {
  return {
    name, pgType, elementType: pgType.endsWith('[]') ? pgType.slice(0, -2) : null, baseType: pgType,
    nullable: true, default: null, identity: null, generated: false, enumValues: null, comment: null, ...extra,
  };
}

const all = { select: true, insert: true, update: true, delete: true };

function table(name: string, columns: ColumnMeta[], primaryKey: string[], relations: RelationMeta[]): TableMeta {
  return {
    schema: 'public', name, kind: 'table', comment: null, columns, primaryKey, uniqueKeys: [], relations,
    computedFields: [], computedRelations: [],
    updatable: { insert: true, update: true, delete: true },
    grants: { anon: all, authenticated: all, service_role: all },
    rls: { enabled: false, forced: false, policies: [] },
  };
}

function rel(kind: RelationKind, targetName: string, constraint: string, from: string[], to: string[]): RelationMeta {
  return { kind, targetSchema: 'public', targetName, constraint, join: { from, to }, junction: null };
}

const filmsActors: RelationMeta = {
  kind: 'many-to-many', targetSchema: 'public', targetName: 'actors', constraint: 'roles_actor_id_fkey', join: null,
  junction: {
    schema: 'public', name: 'roles',
    sourceConstraint: 'roles_film_id_fkey', source: { from: ['id'], to: ['film_id'] },
    targetConstraint: 'roles_actor_id_fkey', target: { from: ['actor_id'], to: ['id'] },
  },
};
const actorsFilms: RelationMeta = {
  kind: 'many-to-many', targetSchema: 'public', targetName: 'films', constraint: 'roles_film_id_fkey', join: null,
  junction: {
    schema: 'public', name: 'roles',
    sourceConstraint: 'roles_actor_id_fkey', source: { from: ['id'], to: ['actor_id'] },
    targetConstraint: 'roles_film_id_fkey', target: { from: ['film_id'], to: ['id'] },
  },
};

const tables: TableMeta[] = [
  table('directors', [col('id', 'integer', { nullable: false }), col('first_name', 'text'), col('last_name', 'text')], ['id'], [
    rel('one-to-many', 'films', 'films_director_id_fkey', ['id'], ['director_id']),
  ]),
  table('films', [
    col('id', 'integer', { nullable: false }), col('director_id', 'integer'), col('title', 'text', { nullable: false }),
    col('year', 'integer'), col('tags', 'text[]'), col('meta', 'jsonb'), col('doc', 'json'), col('search', 'tsvector'),
    col('duration', 'int4range'),
  ], ['id'], [
    rel('many-to-one', 'directors', 'films_director_id_fkey', ['director_id'], ['id']),
    rel('one-to-many', 'roles', 'roles_film_id_fkey', ['id'], ['film_id']),
    filmsActors,
  ]),
  table('actors', [col('id', 'integer', { nullable: false }), col('first_name', 'text'), col('last_name', 'text')], ['id'], [
    rel('one-to-many', 'roles', 'roles_actor_id_fkey', ['id'], ['actor_id']),
    actorsFilms,
  ]),
  table('roles', [col('film_id', 'integer', { nullable: false }), col('actor_id', 'integer', { nullable: false }), col('character', 'text')],
    ['film_id', 'actor_id'], [
      rel('many-to-one', 'films', 'roles_film_id_fkey', ['film_id'], ['id']),
      rel('many-to-one', 'actors', 'roles_actor_id_fkey', ['actor_id'], ['id']),
    ]),
  table('addresses', [col('id', 'integer', { nullable: false }), col('name', 'text')], ['id'], [
    rel('one-to-many', 'orders', 'billing', ['id'], ['billing_address_id']),
    rel('one-to-many', 'orders', 'shipping', ['id'], ['shipping_address_id']),
  ]),
  table('orders', [
    col('id', 'integer', { nullable: false, identity: 'by default' }), col('name', 'text'),
    col('billing_address_id', 'integer'), col('shipping_address_id', 'integer'),
  ], ['id'], [
    rel('many-to-one', 'addresses', 'billing', ['billing_address_id'], ['id']),
    rel('many-to-one', 'addresses', 'shipping', ['shipping_address_id'], ['id']),
  ]),
  table('employees', [
    col('id', 'integer', { nullable: false, default: "nextval('employees_id_seq'::regclass)" }),
    col('name', 'text', { nullable: false }), col('manager_id', 'integer'),
  ], ['id'], [
    rel('many-to-one', 'employees', 'employees_manager_id_fkey', ['manager_id'], ['id']),
    rel('one-to-many', 'employees', 'employees_manager_id_fkey', ['id'], ['manager_id']),
  ]),
  table('items', [
    col('id', 'bigint', { nullable: false, identity: 'always' }), col('name', 'text', { default: "'unnamed'::text" }),
    col('qty', 'integer', { nullable: false, default: '1' }), col('total', 'integer', { generated: true, default: '(qty * 2)' }),
  ], ['id'], []),
];

function arg(name: string, pgType: string, extra: Partial<FunctionArgMeta> = {}): FunctionArgMeta {
  return { name, pgType, hasDefault: false, variadic: false, ...extra };
}

function fn(name: string, args: FunctionArgMeta[], returnType: string, extra: Partial<FunctionMeta> = {}): FunctionMeta {
  return {
    schema: 'public', name, args, returnType, returnsSet: false, returnKind: 'scalar', returnRelation: null,
    returnColumns: [], volatility: 'volatile', securityDefiner: false, comment: null, ...extra,
  };
}

const filmColumns = tables.find((t) => t.name === 'films')?.columns.map((c) => ({ name: c.name, pgType: c.pgType })) ?? [];

const functions: FunctionMeta[] = [
  fn('add_them', [arg('a', 'integer'), arg('b', 'integer')], 'integer', { volatility: 'immutable' }),
  fn('films_by_year', [arg('y', 'integer')], 'SETOF films', {
    returnsSet: true, returnKind: 'composite', returnRelation: { schema: 'public', name: 'films' }, returnColumns: filmColumns, volatility: 'stable',
  }),
  fn('echo', [arg('', 'json')], 'json'),
  fn('nothing', [], 'void', { returnKind: 'void' }),
  fn('greet', [arg('', 'text')], 'text', { volatility: 'immutable' }),
  fn('point', [arg('x', 'integer'), arg('y', 'integer')], 'record', {
    returnKind: 'composite', returnColumns: [{ name: 'px', pgType: 'integer' }, { name: 'py', pgType: 'integer' }], volatility: 'immutable',
  }),
  fn('series', [arg('n', 'integer')], 'SETOF integer', { returnsSet: true, volatility: 'immutable' }),
  fn('any_rows', [arg('n', 'integer')], 'record', { returnsSet: true, volatility: 'stable' }),
  fn('var_sum', [arg('nums', 'integer[]', { variadic: true })], 'integer', { volatility: 'immutable' }),
  fn('over', [arg('a', 'integer')], 'text'),
  fn('over', [arg('a', 'text')], 'text'),
  fn('defaults', [arg('a', 'integer'), arg('b', 'integer', { hasDefault: true })], 'integer', { volatility: 'immutable' }),
  // poly(int) exists too, but an unnamed int parameter is not callable: the generator leaves it out.
  fn('poly', [arg('', 'text')], 'text', { volatility: 'stable' }),
  fn('poly', [arg('x', 'integer'), arg('y', 'integer')], 'integer', { volatility: 'stable' }),
  fn('bin', [arg('', 'bytea')], 'bytea'),
  fn('maybe', [], 'integer'),
  fn('maybe', [arg('', 'text', { hasDefault: true })], 'text'),
  fn('padded', [arg('c', 'character'), arg('cs', 'character[]'), arg('b', 'bit')], 'text', { volatility: 'immutable' }),
];

export const META: ProjectMeta = {
  schemas: ['public'],
  tables: Object.fromEntries(tables.map((t) => [`${t.schema}.${t.name}`, t])),
  functions: functions.reduce<Record<string, FunctionMeta[]>>((acc, f) => {
    (acc[`${f.schema}.${f.name}`] ??= []).push(f);
    return acc;
  }, {}),
};
