import { quoteIdent } from '../../runtime/db/identifiers.js';
import { compareCodePoints } from '../model/sort.js';
import type { ChangeSubject } from './api-change.js';
import type { CodeSite, ExtensionCode, SiteKind } from './code-references.js';

/** Where the project's own code uses what a change is to. */
export interface CodeReference {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly kind: SiteKind;
  /** The hook or route it is in: `hook tickets.beforeInsert`, `route close-ticket`; null elsewhere. */
  readonly in: string | null;
  /** The route's endpoint when it is in one: `POST /functions/v1/close-ticket`. */
  readonly endpoint: string | null;
  /** What names it: the SQL, the literal, the property, the hook. */
  readonly text: string;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Whether SQL text names `name` as an identifier: unquoted in any case when the name is a plain
 * lower-case one (PostgreSQL folds unquoted names to lower case), or double-quoted exactly.
 */
export function sqlNames(sql: string, name: string): boolean {
  const quoted = quoteIdent(name);
  if (sql.includes(quoted)) return true;
  return /^[a-z_][a-z0-9_$]*$/.test(name) && new RegExp(`(?<![\\w$"])${escape(name)}(?![\\w$"])`, 'i').test(sql);
}

export function routeEndpoint(route: NonNullable<CodeSite['route']>): string {
  return `${route.method} /functions/v1/${route.name}`;
}

function describe(site: CodeSite): string | null {
  if (site.route) return `route ${site.route.name}`;
  // A hook's registration is the hook itself: it is in nothing.
  return site.hook && site.kind !== 'hook' ? `hook ${site.hook.table}.${site.hook.name}` : null;
}

/**
 * The sites that use the change's subject, as it was named at the base (what the code was written
 * against). A table: hooks registered on it, SQL naming it, string literals equal to its name (typed
 * references `Tables<'tickets'>` included). A column: those hooks, SQL naming the table and the column,
 * and string literals or property names equal to the column inside a hook of the table or a function
 * whose code names the table. A function or enum type: SQL naming it, string literals equal to it.
 */
export function referencesTo(subject: ChangeSubject, code: ExtensionCode): CodeReference[] {
  const matches = siteMatcher(subject, code.schema);
  if (matches === null) return [];
  const found = code.sites.filter(matches).map((site) => ({
    file: site.file,
    line: site.line,
    column: site.column,
    kind: site.kind,
    in: describe(site),
    endpoint: site.route ? routeEndpoint(site.route) : null,
    text: site.kind === 'sql' ? site.text.replace(/\s+/g, ' ').trim() : site.text,
  }));
  return found.sort((a, b) => compareCodePoints(a.file, b.file) || a.line - b.line || a.column - b.column);
}

function siteMatcher(subject: ChangeSubject, extensionSchema: string): ((site: CodeSite) => boolean) | null {
  if (subject.kind === 'function' || subject.kind === 'enum') {
    const name = subject.kind === 'function' ? (subject.base ?? subject.head)!.name : subject.name;
    return (site) => (site.kind === 'sql' ? sqlNames(site.text, name) : site.kind === 'string' && site.text === name);
  }
  const relation = subject.base;
  if (relation === null) return null;
  const table = relation.name;
  const hookedHere = (site: CodeSite): boolean => relation.schema === extensionSchema && site.hook?.table === table;
  const namesTable = (site: CodeSite): boolean =>
    (site.kind === 'hook' && hookedHere(site)) || (site.kind === 'sql' && sqlNames(site.text, table)) || (site.kind === 'string' && site.text === table);
  const column = subject.column?.base?.name ?? null;
  if (subject.column !== null && column === null) return null;
  if (column === null) return namesTable;
  const inTableScope = (site: CodeSite): boolean => hookedHere(site) || sqlNames(site.scope, table) || site.scope.includes(`'${table}'`) || site.scope.includes(`"${table}"`);
  return (site) => {
    if (site.kind === 'hook') return hookedHere(site);
    if (site.kind === 'sql') return sqlNames(site.text, table) && sqlNames(site.text, column);
    if (site.kind === 'string' && site.text === table) return true;
    return (site.kind === 'string' || site.kind === 'property') && site.text === column && inTableScope(site);
  };
}
