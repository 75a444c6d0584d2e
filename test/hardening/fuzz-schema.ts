import fs from 'node:fs/promises';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '../..');

/**
 * The schema the query-string fuzzer runs against: the data API's shop fixture (tables, views,
 * relations, functions of every result shape) plus a text function, named in the issue's
 * example of a request that answered 500.
 */
export async function fuzzSchemaSql(): Promise<string> {
  const shop = await fs.readFile(path.join(repoRoot, 'test/fixtures/schemas/rest-shop.sql'), 'utf8');
  return `${shop}\nCREATE FUNCTION echo_text(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT t $$;\n`;
}

export interface FuzzTable {
  readonly name: string;
  readonly columns: readonly string[];
  /** Names an embed may take from here (tables, FK constraint names as hints). */
  readonly embeds: readonly string[];
}

export interface FuzzFunction {
  readonly name: string;
  readonly args: readonly string[];
}

/** What the grammar draws names from: the real names of fuzzSchemaSql, and some that do not exist. */
export interface FuzzTarget {
  readonly tables: readonly FuzzTable[];
  readonly functions: readonly FuzzFunction[];
}

export const SHOP_TARGET: FuzzTarget = {
  tables: [
    { name: 'customers', columns: ['id', 'name', 'email', 'tags', 'vip', 'profile', 'settings'], embeds: ['orders', 'addresses'] },
    { name: 'addresses', columns: ['id', 'customer_id', 'city'], embeds: ['customers', 'orders'] },
    {
      name: 'orders',
      columns: ['id', 'customer_id', 'billing_address_id', 'shipping_address_id', 'total', 'status'],
      embeds: ['customers', 'addresses', 'order_items', 'products', 'billing', 'shipping'],
    },
    { name: 'products', columns: ['id', 'name', 'price'], embeds: ['orders', 'order_items'] },
    { name: 'order_items', columns: ['order_id', 'product_id', 'qty'], embeds: ['orders', 'products'] },
    { name: 'employees', columns: ['id', 'name', 'manager_id'], embeds: ['employees'] },
    { name: 'odd names', columns: ['x,y', 'Mixed Case', 'a.b'], embeds: [] },
    { name: 'notes', columns: ['id', 'owner', 'body', 'public'], embeds: [] },
    { name: 'counters', columns: ['name', 'hits'], embeds: [] },
    { name: 'paid_orders', columns: ['id', 'customer_id', 'total'], embeds: ['customers'] },
    { name: 'order_totals', columns: ['customer_id', 'total'], embeds: [] },
    { name: 'product_names', columns: ['name'], embeds: [] },
    { name: 'no_such_table', columns: ['id'], embeds: ['nowhere'] },
  ],
  // `numbers(n)` is left out on purpose: a large n is a slow request, not a malformed one.
  functions: [
    { name: 'echo_text', args: ['t'] },
    { name: 'add', args: ['a', 'b'] },
    { name: 'customer', args: ['cid'] },
    { name: 'customers_from', args: ['min_id'] },
    { name: 'spend', args: [] },
    { name: 'request_info', args: [] },
    { name: 'hit', args: ['counter'] },
    { name: 'echo', args: [''] },
    { name: 'pick', args: ['a', 'b'] },
    { name: 'to_int', args: ['x'] },
    { name: 'fail_plain', args: [] },
    { name: 'fail_payment', args: [] },
    { name: 'secret_count', args: [] },
    { name: 'hit_and_fail', args: ['counter'] },
    { name: 'my_note_count', args: [] },
    { name: 'no_such_function', args: ['x'] },
  ],
};
