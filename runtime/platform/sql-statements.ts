/** One statement of a SQL script and the 1-based line it starts on. */
export interface ScriptStatement {
  readonly sql: string;
  readonly line: number;
}

/**
 * Splits a SQL script at top-level semicolons, skipping over quoted strings and
 * identifiers, dollar-quoted bodies and comments. Only used to locate an error
 * PostgreSQL reported without a position, so it errs on the side of not splitting.
 */
export function splitStatements(script: string): ScriptStatement[] {
  const statements: ScriptStatement[] = [];
  let start = 0;
  let i = 0;
  const push = (end: number) => {
    const text = script.slice(start, end);
    const lead = text.length - text.trimStart().length;
    if (text.trim() !== '') {
      statements.push({ sql: text.trim(), line: script.slice(0, start + lead).split('\n').length });
    }
  };
  while (i < script.length) {
    const ch = script[i]!;
    const next = script[i + 1];
    if (ch === '-' && next === '-') {
      const end = script.indexOf('\n', i);
      i = end === -1 ? script.length : end + 1;
    } else if (ch === '/' && next === '*') {
      let depth = 1;
      i += 2;
      while (i < script.length && depth > 0) {
        if (script.startsWith('/*', i)) {
          depth++;
          i += 2;
        } else if (script.startsWith('*/', i)) {
          depth--;
          i += 2;
        } else i++;
      }
    } else if (ch === "'" || ch === '"') {
      i++;
      while (i < script.length) {
        if (script[i] === ch && script[i + 1] === ch) i += 2;
        else if (script[i] === ch) break;
        else i++;
      }
      i++;
    } else if (ch === '$') {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(script.slice(i, i + 64));
      if (tag) {
        const end = script.indexOf(tag[0], i + tag[0].length);
        i = end === -1 ? script.length : end + tag[0].length;
      } else i++;
    } else if (ch === ';') {
      push(i);
      start = i + 1;
      i++;
    } else i++;
  }
  push(script.length);
  return statements;
}
