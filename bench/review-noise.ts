/**
 * Review noise: the lines of `git diff` in generated/<ref>/ that each of four migrations causes, per file, for the
 * generator of a checkout. A 7-table schema with enums, a view, functions and row-level security; the migrations:
 * (1) a column added, one renamed, numeric -> integer, a table added, a function parameter added; (2) a policy-only
 * change; (3) a one-column rename; (4) a column comment. Run it for two checkouts (e.g. before and after a change
 * to the generator) and compare the tables:
 *
 *   DATABASE_URL=... npx tsx bench/review-noise.ts [--checkout DIR]
 *
 * Uses the CLI of the checkout (`project create`, `migrate`) against DATABASE_URL, with a temporary GANTRY_HOME
 * and a temporary git repository holding the generated folder.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const BASE = `
CREATE TYPE public.order_status AS ENUM ('new', 'paid', 'shipped');
CREATE TYPE public.priority AS ENUM ('low', 'high');
CREATE TABLE public.customers (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, owner uuid NOT NULL DEFAULT auth.uid(), name text NOT NULL, email text);
CREATE TABLE public.products (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, title text NOT NULL, price numeric(10,2) NOT NULL, stock int NOT NULL DEFAULT 0);
CREATE TABLE public.orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, customer_id bigint NOT NULL REFERENCES public.customers (id), status public.order_status NOT NULL DEFAULT 'new', total numeric NOT NULL DEFAULT 0, note text);
CREATE TABLE public.order_items (order_id bigint REFERENCES public.orders (id), product_id bigint REFERENCES public.products (id), quantity int NOT NULL, PRIMARY KEY (order_id, product_id));
CREATE TABLE public.tickets (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, customer_id bigint REFERENCES public.customers (id), priority public.priority NOT NULL DEFAULT 'low', body text NOT NULL);
CREATE TABLE public.tags (id int PRIMARY KEY, label text NOT NULL UNIQUE);
CREATE TABLE public.product_tags (product_id bigint REFERENCES public.products (id), tag_id int REFERENCES public.tags (id), PRIMARY KEY (product_id, tag_id));
CREATE VIEW public.order_totals AS SELECT o.id, o.customer_id, sum(i.quantity) AS items FROM public.orders o LEFT JOIN public.order_items i ON i.order_id = o.id GROUP BY o.id;
CREATE FUNCTION public.orders_of(p_customer bigint) RETURNS SETOF public.orders LANGUAGE sql STABLE AS $$ SELECT * FROM public.orders WHERE customer_id = p_customer $$;
CREATE FUNCTION public.restock(p_product bigint) RETURNS int LANGUAGE sql AS $$ UPDATE public.products SET stock = stock + 1 WHERE id = p_product RETURNING stock $$;
ALTER TABLE public.customers ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_customer ON public.customers FOR ALL TO authenticated USING (owner = auth.uid()) WITH CHECK (owner = auth.uid());
ALTER TABLE public.orders ENABLE ROW LEVEL SECURITY;
CREATE POLICY read_orders ON public.orders FOR SELECT TO authenticated USING (customer_id IN (SELECT id FROM public.customers));
`;

const MIGRATIONS: readonly (readonly [string, string])[] = [
  [
    '1 column added, column renamed, numeric -> integer, table added, function parameter added',
    `ALTER TABLE public.customers ADD COLUMN phone text;
ALTER TABLE public.products RENAME COLUMN title TO name;
ALTER TABLE public.orders ALTER COLUMN total TYPE integer;
CREATE TABLE public.shipments (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, order_id bigint NOT NULL REFERENCES public.orders (id), carrier text);
DROP FUNCTION public.restock(bigint);
CREATE FUNCTION public.restock(p_product bigint, p_amount int DEFAULT 1) RETURNS int LANGUAGE sql AS $$ UPDATE public.products SET stock = stock + p_amount WHERE id = p_product RETURNING stock $$;`,
  ],
  ['2 policy-only change', `CREATE POLICY insert_orders ON public.orders FOR INSERT TO authenticated WITH CHECK (customer_id IN (SELECT id FROM public.customers));`],
  ['3 one-column rename', `ALTER TABLE public.tickets RENAME COLUMN body TO message;`],
  ['4 column comment', `COMMENT ON COLUMN public.tags.label IS 'Shown to customers';`],
];

const { values } = parseArgs({ options: { checkout: { type: 'string' } } });
const checkout = path.resolve(values.checkout ?? path.join(import.meta.dirname, '..'));
if (!process.env.DATABASE_URL) throw new Error('set DATABASE_URL (a superuser URL of a running cluster)');

const work = await fs.mkdtemp(path.join(os.tmpdir(), 'gantry-noise-'));
const ref = `noise_${Date.now().toString(36)}`;
const env = { ...process.env, GANTRY_HOME: path.join(work, 'home'), GANTRY_GENERATED_DIR: path.join(work, 'generated'), LOG_LEVEL: 'warn' };
const gantry = (...args: string[]): string => execFileSync(process.execPath, [path.join(checkout, 'bin/gantry.mjs'), ...args], { cwd: work, env, encoding: 'utf8' });
const git = (...args: string[]): string => execFileSync('git', args, { cwd: work, encoding: 'utf8' });

try {
  git('init', '-q');
  await fs.writeFile(path.join(work, 'base.sql'), BASE);
  gantry('project', 'create', ref, '--schema', 'base.sql', '--json');
  git('add', 'generated');
  git('-c', 'user.email=b@example.com', '-c', 'user.name=bench', 'commit', '-qm', 'base');
  console.log(`checkout ${checkout}\n`);
  for (const [label, sql] of MIGRATIONS) {
    const file = path.join(work, `m${label[0]}.sql`);
    await fs.writeFile(file, `${sql}\n`);
    gantry('migrate', ref, file, '--json');
    git('add', '-A', 'generated');
    const numstat = git('diff', '--cached', '--numstat').trim();
    const rows = numstat === '' ? [] : numstat.split('\n').map((line) => line.split('\t'));
    const total = rows.reduce((sum, [added, deleted]) => sum + Number(added) + Number(deleted), 0);
    console.log(`migration ${label}: ${rows.length} files, ${total} lines (+/-)`);
    for (const [added, deleted, name] of rows) console.log(`  ${String(Number(added) + Number(deleted)).padStart(5)}  +${added} -${deleted}  ${path.relative(`generated/${ref}`, name!)}`);
    git('-c', 'user.email=b@example.com', '-c', 'user.name=bench', 'commit', '-qm', label, '--allow-empty');
  }
  gantry('project', 'delete', ref, '--json');
} finally {
  await fs.rm(work, { recursive: true, force: true });
}
