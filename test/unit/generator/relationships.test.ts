import { describe, expect, it } from 'vitest';
import { findAmbiguities } from '../../../generator/model/ambiguity.js';
import { buildRelationships } from '../../../generator/model/relationships.js';
import type { InternalTableModel, RelationModel } from '../../../generator/model/types.js';
import { column, fk, int4, model, table } from './model-fixtures.js';

const summary = (m: ReturnType<typeof model>, key: string): string[] =>
  (buildRelationships(m).get(key) ?? []).map(
    (r) =>
      `${r.kind} ${r.targetName} ${r.constraint} ${r.join ? `${r.join.from.join(',')}->${r.join.to.join(',')}` : `via ${r.junction?.name}`}`,
  );

describe('buildRelationships', () => {
  const users = table('users');
  const addresses = table('addresses');
  const orders = table('orders', {
    columns: [column('id', int4), column('user_id', int4), column('billing_id', int4), column('shipping_id', int4), column('parent_id', int4)],
    foreignKeys: [
      fk('billing', ['billing_id'], 'addresses'),
      fk('orders_parent_id_fkey', ['parent_id'], 'orders'),
      fk('orders_shipping_id_fkey', ['shipping_id'], 'addresses'),
      fk('orders_user_id_fkey', ['user_id'], 'users'),
    ],
  });
  const profile = table('profiles', {
    columns: [column('user_id', int4)],
    primaryKey: { name: 'profiles_pkey', columns: ['user_id'] },
    foreignKeys: [fk('profiles_user_id_fkey', ['user_id'], 'users')],
  });
  const products = table('products');
  const items = table('order_items', {
    columns: [column('order_id', int4), column('product_id', int4)],
    primaryKey: { name: 'order_items_pkey', columns: ['order_id', 'product_id'] },
    foreignKeys: [fk('items_order_fkey', ['order_id'], 'orders'), fk('items_product_fkey', ['product_id'], 'products')],
  });
  const view = table('my_orders', {
    kind: 'view',
    primaryKey: null,
    columns: [column('id', int4), column('buyer', int4)],
    columnSources: [
      { column: 'id', schema: 'public', table: 'orders', sourceColumn: 'id' },
      { column: 'buyer', schema: 'public', table: 'orders', sourceColumn: 'user_id' },
    ],
  });
  const m = model([addresses, view, items, orders, products, profile, users]);

  it('orients every foreign key both ways, one-to-one when the key is unique', () => {
    expect(summary(m, 'public.users')).toEqual([
      'one-to-many my_orders orders_user_id_fkey id->buyer',
      'one-to-many orders orders_user_id_fkey id->user_id',
      'one-to-one profiles profiles_user_id_fkey id->user_id',
    ]);
    expect(summary(m, 'public.profiles')).toEqual(['one-to-one users profiles_user_id_fkey user_id->id']);
  });

  it('covers several keys to one table, self references, views and junctions', () => {
    expect(summary(m, 'public.orders')).toEqual([
      'many-to-one addresses billing billing_id->id',
      'many-to-one addresses orders_shipping_id_fkey shipping_id->id',
      'many-to-one my_orders orders_parent_id_fkey parent_id->id',
      'one-to-many order_items items_order_fkey id->order_id',
      'one-to-many orders orders_parent_id_fkey id->parent_id',
      'many-to-one orders orders_parent_id_fkey parent_id->id',
      'many-to-many products items_product_fkey via order_items',
      'many-to-one users orders_user_id_fkey user_id->id',
    ]);
    expect(summary(m, 'public.my_orders')).toEqual([
      'one-to-many order_items items_order_fkey id->order_id',
      'one-to-many orders orders_parent_id_fkey id->parent_id',
      'many-to-many products items_product_fkey via order_items',
      'many-to-one users orders_user_id_fkey buyer->id',
    ]);
    const junction = buildRelationships(m).get('public.products')?.find((r) => r.kind === 'many-to-many');
    expect(junction?.junction).toEqual({
      schema: 'public',
      name: 'order_items',
      sourceConstraint: 'items_product_fkey',
      source: { from: ['id'], to: ['product_id'] },
      targetConstraint: 'items_order_fkey',
      target: { from: ['order_id'], to: ['id'] },
    });
  });

  it('precomputes PGRST201 details and hints', () => {
    const ambiguities = findAmbiguities(buildRelationships(m).get('public.orders') ?? []);
    // orders -> orders is a self-relation: by name it means the one-to-many side only.
    expect(ambiguities.map((a) => a.target)).toEqual(['addresses']);
    expect(ambiguities[0]).toEqual({
      target: 'addresses',
      details: [
        { cardinality: 'many-to-one', embedding: 'orders with addresses', relationship: 'billing using orders(billing_id) and addresses(id)' },
        {
          cardinality: 'many-to-one',
          embedding: 'orders with addresses',
          relationship: 'orders_shipping_id_fkey using orders(shipping_id) and addresses(id)',
        },
      ],
      options: ['addresses!billing', 'addresses!orders_shipping_id_fkey'],
    });
    const many = findAmbiguities([
      ...(buildRelationships(m).get('public.products') ?? []),
      ...(buildRelationships(m).get('public.products') ?? []).map((r) => ({ ...r, constraint: 'other' })),
    ]);
    const toOrders = many.find((a) => a.target === 'orders');
    expect(toOrders?.details[0]?.relationship).toBe('order_items using items_product_fkey(product_id) and items_order_fkey(order_id)');
    expect(toOrders?.options[0]).toBe('orders!order_items');
  });

  it('orders candidates as PostgREST: one-to-many before many-to-one, junctions by their first key, then their second', () => {
    const departments = table('departments', {
      columns: [column('id', int4), column('head_id', int4)],
      foreignKeys: [fk('departments_head_id_fkey', ['head_id'], 'agents')],
    });
    const agents = table('agents', {
      columns: [column('id', int4), column('department_id', int4)],
      foreignKeys: [fk('agents_department_id_fkey', ['department_id'], 'departments')],
    });
    const jobs = table('whatev_jobs', {
      columns: ['site_id_1', 'site_id_2', 'project_id_1', 'project_id_2'].map((c) => column(c, int4)),
      primaryKey: { name: 'whatev_jobs_pkey', columns: ['site_id_1', 'site_id_2', 'project_id_1', 'project_id_2'] },
      foreignKeys: [
        fk('whatev_jobs_project_id_1_fkey', ['project_id_1'], 'whatev_projects'),
        fk('whatev_jobs_project_id_2_fkey', ['project_id_2'], 'whatev_projects'),
        fk('whatev_jobs_site_id_1_fkey', ['site_id_1'], 'whatev_sites'),
        fk('whatev_jobs_site_id_2_fkey', ['site_id_2'], 'whatev_sites'),
      ],
    });
    const m2 = model([agents, departments, jobs, table('whatev_projects'), table('whatev_sites')]);
    expect(findAmbiguities(buildRelationships(m2).get('public.agents') ?? [])[0]?.options).toEqual([
      'departments!departments_head_id_fkey',
      'departments!agents_department_id_fkey',
    ]);
    const toProjects = findAmbiguities(buildRelationships(m2).get('public.whatev_sites') ?? []).find((a) => a.target === 'whatev_projects');
    expect(toProjects?.details.map((d) => d.relationship)).toEqual([
      'whatev_jobs using whatev_jobs_site_id_1_fkey(site_id_1) and whatev_jobs_project_id_1_fkey(project_id_1)',
      'whatev_jobs using whatev_jobs_site_id_1_fkey(site_id_1) and whatev_jobs_project_id_2_fkey(project_id_2)',
      'whatev_jobs using whatev_jobs_site_id_2_fkey(site_id_2) and whatev_jobs_project_id_1_fkey(project_id_1)',
      'whatev_jobs using whatev_jobs_site_id_2_fkey(site_id_2) and whatev_jobs_project_id_2_fkey(project_id_2)',
    ]);
  });

  describe('through views of tables in another schema', () => {
    const privateTable = (name: string, extra: Partial<InternalTableModel> = {}): InternalTableModel => ({
      schema: 'private',
      name,
      primaryKey: { name: `${name}_pkey`, columns: ['id'] },
      uniqueConstraints: [],
      foreignKeys: [],
      ...extra,
    });
    const privateFk = (name: string, columns: string[], targetName: string) => ({ ...fk(name, columns, targetName), targetSchema: 'private' });
    const over = (name: string, base: string, columns: string[]): RelationModel =>
      table(name, {
        kind: 'view',
        primaryKey: null,
        columns: columns.map((c) => column(c, int4)),
        columnSources: columns.map((c) => ({ column: c, schema: 'private', table: base, sourceColumn: c })),
      });
    const internalTables = [
      privateTable('authors'),
      privateTable('books', { foreignKeys: [privateFk('books_author_id_fkey', ['author_id'], 'authors')] }),
      privateTable('job', { foreignKeys: [privateFk('parent_fk', ['parent_id'], 'job')] }),
      privateTable('labels'),
      privateTable('screens'),
      privateTable('label_screen', {
        primaryKey: { name: 'label_screen_pkey', columns: ['label_id', 'screen_id'] },
        foreignKeys: [privateFk('label_fk', ['label_id'], 'labels'), privateFk('screen_fk', ['screen_id'], 'screens')],
      }),
      privateTable('junction', {
        primaryKey: { name: 'junction_pkey', columns: ['end_1_id', 'end_2_id'] },
        foreignKeys: [fk('junction_end_1_fkey', ['end_1_id'], 'end_1'), fk('junction_end_2_fkey', ['end_2_id'], 'end_2')],
      }),
    ];
    const views = model(
      [
        over('authors', 'authors', ['id', 'name']),
        over('books', 'books', ['id', 'author_id']),
        table('end_1'),
        table('end_2'),
        over('job', 'job', ['id', 'parent_id']),
        over('label_screen', 'label_screen', ['label_id', 'screen_id']),
        over('labels', 'labels', ['id']),
        over('screens', 'screens', ['id']),
      ],
      { internalTables },
    );
    const all = buildRelationships(views);

    it('relates the views as their base tables are related, the key marked as internal', () => {
      expect(summary(views, 'public.books')).toEqual(['many-to-one authors books_author_id_fkey author_id->id']);
      expect(summary(views, 'public.authors')).toEqual(['one-to-many books books_author_id_fkey id->author_id']);
      expect(summary(views, 'public.job')).toEqual([
        'one-to-many job parent_fk id->parent_id',
        'many-to-one job parent_fk parent_id->id',
      ]);
      expect(all.get('public.books')?.every((r) => r.internalKey)).toBe(true);
    });

    it('joins many-to-many through an exposed view of a junction, never through an internal junction', () => {
      expect(summary(views, 'public.screens')).toEqual([
        'one-to-many label_screen screen_fk id->screen_id',
        'many-to-many labels label_fk via label_screen',
      ]);
      expect(summary(views, 'public.end_1')).toEqual([]);
    });
  });
});

describe('buildRelationships with a view exposing a key column twice', () => {
  it('has one relationship per view column, both ways', () => {
    const users = table('users');
    const todos = table('todos', { columns: [column('id', int4), column('user_id', int4)], foreignKeys: [fk('todos_user_id_fkey', ['user_id'], 'users')] });
    const pair = table('user_pair', {
      kind: 'view',
      primaryKey: null,
      columns: [column('first_id', int4), column('second_id', int4)],
      columnSources: [
        { column: 'second_id', schema: 'public', table: 'users', sourceColumn: 'id' },
        { column: 'first_id', schema: 'public', table: 'users', sourceColumn: 'id' },
      ],
    });
    const m = model([pair, todos, users]);
    expect(summary(m, 'public.todos')).toEqual([
      'many-to-one user_pair todos_user_id_fkey user_id->first_id',
      'many-to-one user_pair todos_user_id_fkey user_id->second_id',
      'many-to-one users todos_user_id_fkey user_id->id',
    ]);
    expect(summary(m, 'public.user_pair')).toEqual([
      'one-to-many todos todos_user_id_fkey first_id->user_id',
      'one-to-many todos todos_user_id_fkey second_id->user_id',
    ]);
  });
});

