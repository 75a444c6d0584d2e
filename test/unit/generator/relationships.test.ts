import { describe, expect, it } from 'vitest';
import { findAmbiguities } from '../../../generator/model/ambiguity.js';
import { buildRelationships } from '../../../generator/model/relationships.js';
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
      'many-to-one orders orders_parent_id_fkey parent_id->id',
      'one-to-many orders orders_parent_id_fkey id->parent_id',
      'many-to-many products items_product_fkey via order_items',
      'many-to-one users orders_user_id_fkey user_id->id',
    ]);
    expect(summary(m, 'public.my_orders')).toEqual([
      'one-to-many order_items items_order_fkey id->order_id',
      'one-to-many orders orders_parent_id_fkey id->parent_id',
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
    expect(many[1]?.details[0]?.relationship).toBe('order_items using items_product_fkey(product_id) and items_order_fkey(order_id)');
    expect(many[1]?.options[0]).toBe('orders!order_items');
  });
});
