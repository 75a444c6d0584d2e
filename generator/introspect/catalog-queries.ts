/**
 * Catalog queries that complement pg-introspection: readable SQL text (types, defaults,
 * policies), effective privileges of the API roles, and view definitions. Each takes the
 * exposed schema names as `$1`.
 */

export interface TypeTextRow {
  readonly id: string;
  readonly sql: string;
}
/** `format_type` of every type, run with `search_path = pg_catalog` so other schemas are qualified. */
export const typeTextQuery = `select t.oid::text as id, pg_catalog.format_type(t.oid, null) as sql from pg_catalog.pg_type t`;

export interface ColumnTextRow {
  readonly relid: string;
  readonly attnum: number;
  readonly sql: string;
  readonly default_expr: string | null;
  /** The default of the column's domain (`CREATE DOMAIN … DEFAULT`), when the column has none of its own. */
  readonly domain_default: string | null;
}
export const columnTextQuery = `
select a.attrelid::text as relid, a.attnum::int as attnum,
       pg_catalog.format_type(a.atttypid, a.atttypmod) as sql,
       pg_catalog.pg_get_expr(d.adbin, d.adrelid) as default_expr,
       case when d.adbin is null and t.typtype = 'd' then pg_catalog.pg_get_expr(t.typdefaultbin, 0) end as domain_default
from pg_catalog.pg_attribute a
join pg_catalog.pg_class c on c.oid = a.attrelid
join pg_catalog.pg_type t on t.oid = a.atttypid
join pg_catalog.pg_namespace n on n.oid = c.relnamespace
left join pg_catalog.pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
where n.nspname = any($1::text[]) and a.attnum > 0 and not a.attisdropped
  and c.relkind in ('r', 'p', 'v', 'm', 'f', 'c')`;

export interface PolicyRow {
  readonly schemaname: string;
  readonly tablename: string;
  readonly policyname: string;
  readonly permissive: string;
  readonly roles: string[];
  readonly cmd: string;
  readonly qual: string | null;
  readonly with_check: string | null;
}
export const policyQuery = `
select schemaname::text, tablename::text, policyname::text, permissive, roles::text[] as roles, cmd, qual, with_check
from pg_catalog.pg_policies where schemaname = any($1::text[])`;

export const apiRoles = ['anon', 'authenticated', 'service_role'] as const;
export type ApiRole = (typeof apiRoles)[number];

export interface TableGrantRow {
  readonly relid: string;
  readonly role: string;
  readonly can_select: boolean;
  readonly can_insert: boolean;
  readonly can_update: boolean;
  readonly can_delete: boolean;
}
export const tableGrantQuery = `
select c.oid::text as relid, r.rolname::text as role,
       pg_catalog.has_table_privilege(r.oid, c.oid, 'SELECT') as can_select,
       pg_catalog.has_table_privilege(r.oid, c.oid, 'INSERT') as can_insert,
       pg_catalog.has_table_privilege(r.oid, c.oid, 'UPDATE') as can_update,
       pg_catalog.has_table_privilege(r.oid, c.oid, 'DELETE') as can_delete
from pg_catalog.pg_class c
join pg_catalog.pg_namespace n on n.oid = c.relnamespace
cross join pg_catalog.pg_roles r
where n.nspname = any($1::text[]) and c.relkind in ('r', 'p', 'v', 'm', 'f')
  and r.rolname in ('anon', 'authenticated', 'service_role')`;

export interface FunctionTextRow {
  readonly id: string;
  readonly identity_arguments: string;
  readonly language: string;
}
export const functionTextQuery = `
select p.oid::text as id, pg_catalog.pg_get_function_identity_arguments(p.oid) as identity_arguments,
       l.lanname::text as language
from pg_catalog.pg_proc p
join pg_catalog.pg_namespace n on n.oid = p.pronamespace
join pg_catalog.pg_language l on l.oid = p.prolang
where n.nspname = any($1::text[])`;

export interface FunctionGrantRow {
  readonly id: string;
  readonly role: string;
  readonly can_execute: boolean;
}
export const functionGrantQuery = `
select p.oid::text as id, r.rolname::text as role,
       pg_catalog.has_function_privilege(r.oid, p.oid, 'EXECUTE') as can_execute
from pg_catalog.pg_proc p
join pg_catalog.pg_namespace n on n.oid = p.pronamespace
cross join pg_catalog.pg_roles r
where n.nspname = any($1::text[]) and r.rolname in ('anon', 'authenticated', 'service_role')`;

export interface ViewRuleRow {
  readonly relid: string;
  readonly action: string;
}
/** Every view outside the system schemas: lineage may run through views of unexposed schemas. */
export const viewRuleQuery = `
select c.oid::text as relid, r.ev_action::text as action
from pg_catalog.pg_rewrite r
join pg_catalog.pg_class c on c.oid = r.ev_class
join pg_catalog.pg_namespace n on n.oid = c.relnamespace
where r.rulename = '_RETURN' and c.relkind in ('v', 'm')
  and n.nspname <> 'information_schema' and n.nspname not like 'pg\\_%'`;

export interface DomainCastRow {
  readonly domain_id: string;
  readonly direction: 'to_json' | 'from_json' | 'from_text';
  readonly fn_schema: string;
  readonly fn_name: string;
}
/**
 * Function casts between a domain and `json`/`text` (PostgREST's domain representations). PostgreSQL
 * ignores casts whose source or target is a domain, so the runtime calls these functions itself.
 */
export const domainCastQuery = `
select case when s.typtype = 'd' then s.oid else t.oid end::text as domain_id,
       case when s.typtype = 'd' then 'to_json' when c.castsource = 'pg_catalog.json'::pg_catalog.regtype then 'from_json' else 'from_text' end as direction,
       n.nspname::text as fn_schema, p.proname::text as fn_name
from pg_catalog.pg_cast c
join pg_catalog.pg_type s on s.oid = c.castsource
join pg_catalog.pg_type t on t.oid = c.casttarget
join pg_catalog.pg_proc p on p.oid = c.castfunc
join pg_catalog.pg_namespace n on n.oid = p.pronamespace
where c.castmethod = 'f'
  and ((s.typtype = 'd' and c.casttarget = 'pg_catalog.json'::pg_catalog.regtype)
    or (t.typtype = 'd' and c.castsource in ('pg_catalog.json'::pg_catalog.regtype, 'pg_catalog.text'::pg_catalog.regtype)))
order by 1, 2`;
