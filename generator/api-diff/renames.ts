import { splitStatements } from '../../runtime/platform/sql-statements.js';

/**
 * The renames a pull request's migrations declare, read from their `ALTER … RENAME` statements.
 *
 * Why the migration text and not a guess from the two schemas: `schema.json` carries no catalog identity
 * (no OIDs, no attnum: two databases with the same schema give the same model), so from the models alone a
 * column renamed and retyped in one pull request is indistinguishable from one dropped and one added. The
 * migration says what happened. No SQL parser is a dependency (the schema is always described by
 * PostgreSQL itself), so only the few statement forms that rename are recognised, on tokens that respect
 * quoting, comments and dollar quotes:
 *
 *   ALTER {TABLE | VIEW | MATERIALIZED VIEW | FOREIGN TABLE} [IF EXISTS] [ONLY] name [*] RENAME [COLUMN] a TO b
 *   ALTER {TABLE | VIEW | MATERIALIZED VIEW | FOREIGN TABLE} [IF EXISTS] name RENAME TO b
 *   ALTER {FUNCTION | PROCEDURE | ROUTINE} name [(args)] RENAME TO b
 *
 * A rename made any other way (dynamic SQL in a DO block) is not seen; the report then falls back to
 * pairing a removed and an added column of the same position and definition.
 */

/** `schema\0name` of a relation or function. */
export type QualifiedKey = string;

export interface DeclaredRenames {
  /** Relations renamed: the base's key → the head's. */
  readonly relations: ReadonlyMap<QualifiedKey, QualifiedKey>;
  /** Columns renamed, by the relation's base key: the base's column name → the head's. */
  readonly columns: ReadonlyMap<QualifiedKey, ReadonlyMap<string, string>>;
  /** Functions renamed (every overload of the name): the base's key → the head's. */
  readonly functions: ReadonlyMap<QualifiedKey, QualifiedKey>;
}

export const noRenames: DeclaredRenames = { relations: new Map(), columns: new Map(), functions: new Map() };

export function qualifiedKey(schema: string, name: string): QualifiedKey {
  return `${schema}\0${name}`;
}

interface Token {
  /** Unquoted words folded to lower case, as PostgreSQL folds them; quoted identifiers as written. */
  readonly text: string;
  readonly quoted: boolean;
}

/** The statement's tokens: identifiers, words and single punctuation; comments and string constants skipped. */
function tokens(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (/\s/.test(ch)) i++;
    else if (sql.startsWith('--', i)) i = sql.includes('\n', i) ? sql.indexOf('\n', i) + 1 : sql.length;
    else if (sql.startsWith('/*', i)) i = sql.includes('*/', i) ? sql.indexOf('*/', i) + 2 : sql.length;
    else if (ch === '"') {
      let text = '';
      i++;
      while (i < sql.length) {
        if (sql[i] === '"' && sql[i + 1] === '"') {
          text += '"';
          i += 2;
        } else if (sql[i] === '"') break;
        else text += sql[i++];
      }
      i++;
      out.push({ text, quoted: true });
    } else if (ch === "'") {
      i++;
      while (i < sql.length && !(sql[i] === "'" && sql[i + 1] !== "'")) i += sql[i] === "'" ? 2 : 1;
      i++;
      out.push({ text: "'", quoted: false });
    } else {
      const word = /^[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*/.exec(sql.slice(i, i + 200));
      if (word) {
        out.push({ text: word[0].toLowerCase(), quoted: false });
        i += word[0].length;
      } else {
        out.push({ text: ch, quoted: false });
        i++;
      }
    }
  }
  return out;
}

/** A cursor over tokens that matches keywords (never quoted identifiers). */
class Cursor {
  private at = 0;
  constructor(private readonly list: readonly Token[]) {}
  keyword(...words: string[]): boolean {
    const match = words.every((word, k) => {
      const token = this.list[this.at + k];
      return token !== undefined && !token.quoted && token.text === word;
    });
    if (match) this.at += words.length;
    return match;
  }
  identifier(): string | null {
    const token = this.list[this.at];
    if (token === undefined || (!token.quoted && !/^[a-z_\u0080-\uffff]/.test(token.text))) return null;
    this.at++;
    return token.text;
  }
  /** `name` or `schema.name`. */
  qualifiedName(): { schema: string | null; name: string } | null {
    const first = this.identifier();
    if (first === null) return null;
    if (!this.keyword('.')) return { schema: null, name: first };
    const second = this.identifier();
    return second === null ? null : { schema: first, name: second };
  }
  /** Skips a parenthesised list, nested parentheses included. */
  skipParentheses(): void {
    if (!this.keyword('(')) return;
    for (let depth = 1; depth > 0 && this.at < this.list.length; this.at++) {
      const token = this.list[this.at]!;
      if (!token.quoted && token.text === '(') depth++;
      if (!token.quoted && token.text === ')') depth--;
    }
  }
  done(): boolean {
    return this.at === this.list.length;
  }
}

type RenameStatement =
  | { readonly what: 'relation'; readonly schema: string | null; readonly name: string; readonly to: string }
  | { readonly what: 'column'; readonly schema: string | null; readonly name: string; readonly column: string; readonly to: string }
  | { readonly what: 'function'; readonly schema: string | null; readonly name: string; readonly to: string };

/** The rename one statement makes; null for any other statement. */
export function renameStatement(sql: string): RenameStatement | null {
  const c = new Cursor(tokens(sql));
  if (!c.keyword('alter')) return null;
  if (c.keyword('function') || c.keyword('procedure') || c.keyword('routine')) {
    const fn = c.qualifiedName();
    c.skipParentheses();
    if (fn === null || !c.keyword('rename', 'to')) return null;
    const to = c.identifier();
    return to !== null && c.done() ? { what: 'function', ...fn, to } : null;
  }
  if (!(c.keyword('table') || c.keyword('view') || c.keyword('materialized', 'view') || c.keyword('foreign', 'table'))) return null;
  c.keyword('if', 'exists');
  c.keyword('only');
  const relation = c.qualifiedName();
  c.keyword('*');
  if (relation === null || !c.keyword('rename')) return null;
  if (c.keyword('to')) {
    const to = c.identifier();
    return to !== null && c.done() ? { what: 'relation', ...relation, to } : null;
  }
  if (c.keyword('constraint')) return null;
  c.keyword('column');
  const column = c.identifier();
  if (column === null || !c.keyword('to')) return null;
  const to = c.identifier();
  return to !== null && c.done() ? { what: 'column', ...relation, column, to } : null;
}

/**
 * The renames of `scripts` (the migrations new since the base, in version order), each traced back to
 * the name it had at the base: a table renamed twice, or renamed and then a column of it renamed under
 * the new name, is one rename from the base's name. An unqualified name is taken as `defaultSchema`'s.
 */
export function declaredRenames(scripts: readonly string[], defaultSchema = 'public'): DeclaredRenames {
  // Keyed by the name now: what it was called at the base.
  const relations = new Map<QualifiedKey, QualifiedKey>();
  const columns = new Map<QualifiedKey, Map<string, string>>();
  const functions = new Map<QualifiedKey, QualifiedKey>();
  const originOf = (names: Map<QualifiedKey, QualifiedKey>, key: QualifiedKey): QualifiedKey => names.get(key) ?? key;
  for (const script of scripts) {
    for (const { sql } of splitStatements(script)) {
      const statement = renameStatement(sql);
      if (statement === null) continue;
      const schema = statement.schema ?? defaultSchema;
      const now = qualifiedKey(schema, statement.name);
      if (statement.what === 'column') {
        const origin = originOf(relations, now);
        const renamed = columns.get(origin) ?? new Map<string, string>();
        const original = renamed.get(statement.column) ?? statement.column;
        renamed.delete(statement.column);
        renamed.set(statement.to, original);
        columns.set(origin, renamed);
        continue;
      }
      const names = statement.what === 'relation' ? relations : functions;
      const origin = originOf(names, now);
      names.delete(now);
      names.set(qualifiedKey(schema, statement.to), origin);
    }
  }
  const invert = (names: Map<QualifiedKey, QualifiedKey>): Map<QualifiedKey, QualifiedKey> =>
    new Map([...names].filter(([now, origin]) => now !== origin).map(([now, origin]) => [origin, now]));
  return {
    relations: invert(relations),
    columns: new Map(
      [...columns].map(([origin, renamed]) => [origin, new Map([...renamed].filter(([now, was]) => now !== was).map(([now, was]) => [was, now]))] as const).filter(([, m]) => m.size > 0),
    ),
    functions: invert(functions),
  };
}
