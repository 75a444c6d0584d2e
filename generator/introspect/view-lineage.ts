/**
 * Reads the stored rewrite rule of a view (`pg_rewrite.ev_action`, a node tree in
 * PostgreSQL's text format) and returns, for each output column of the top-level query,
 * the table column it passes through unchanged. This is how PostgREST finds the
 * foreign keys a view inherits from its base tables.
 */

export interface TargetOrigin {
  /** Position of the view column (its attnum). */
  readonly resno: number;
  /** OID (as text) and attnum of the relation column the value comes from. */
  readonly table: string;
  readonly column: number;
}

type NodeValue = string | NodeList | NodeTree;
interface NodeList {
  readonly kind: 'list';
  readonly items: NodeValue[];
}
interface NodeTree {
  readonly kind: 'node';
  readonly type: string;
  readonly fields: Map<string, NodeValue>;
}

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  let current = '';
  let inAtom = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '\\' && i + 1 < text.length) {
      current += text[i + 1];
      inAtom = true;
      i++;
    } else if (ch === '(' || ch === ')' || ch === '{' || ch === '}') {
      if (inAtom) tokens.push(current);
      tokens.push(ch);
      current = '';
      inAtom = false;
    } else if (ch === ' ' || ch === '\n' || ch === '\t' || ch === '\r') {
      if (inAtom) tokens.push(current);
      current = '';
      inAtom = false;
    } else {
      current += ch;
      inAtom = true;
    }
  }
  if (inAtom) tokens.push(current);
  return tokens;
}

function parseValue(tokens: string[], position: { at: number }): NodeValue {
  const token = tokens[position.at++];
  if (token === '(') {
    const items: NodeValue[] = [];
    while (position.at < tokens.length && tokens[position.at] !== ')') items.push(parseValue(tokens, position));
    position.at++;
    return { kind: 'list', items };
  }
  if (token === '{') {
    const type = tokens[position.at++] ?? '';
    const fields = new Map<string, NodeValue>();
    let key: string | null = null;
    while (position.at < tokens.length && tokens[position.at] !== '}') {
      const next = tokens[position.at] as string;
      if (next.startsWith(':') && next.length > 1 && key === null) {
        key = next.slice(1);
        position.at++;
        continue;
      }
      const value = parseValue(tokens, position);
      if (key !== null) {
        fields.set(key, value);
        key = null;
      }
    }
    position.at++;
    return { kind: 'node', type, fields };
  }
  return token ?? '';
}

/** Origins of the top-level target list; columns that are expressions or come from set operations are omitted. */
export function viewColumnOrigins(evAction: string): TargetOrigin[] {
  const tokens = tokenize(evAction);
  const root = parseValue(tokens, { at: 0 });
  const query = typeof root !== 'string' && root.kind === 'list' ? root.items[0] : root;
  if (query === undefined || typeof query === 'string' || query.kind !== 'node') return [];
  const targetList = query.fields.get('targetList');
  if (targetList === undefined || typeof targetList === 'string' || targetList.kind !== 'list') return [];
  const origins: TargetOrigin[] = [];
  for (const entry of targetList.items) {
    if (typeof entry === 'string' || entry.kind !== 'node' || entry.type !== 'TARGETENTRY') continue;
    const field = (name: string): string => {
      const value = entry.fields.get(name);
      return typeof value === 'string' ? value : '';
    };
    if (field('resjunk') === 'true') continue;
    const table = field('resorigtbl');
    const column = Number(field('resorigcol'));
    const resno = Number(field('resno'));
    if (table === '' || table === '0' || !(column > 0) || !(resno > 0)) continue;
    origins.push({ resno, table, column });
  }
  return origins;
}
