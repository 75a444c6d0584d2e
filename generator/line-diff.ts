/**
 * A small line diff for `gen --check` reports: common leading and trailing lines are
 * trimmed, the middle is aligned with Myers' algorithm (cheap when few lines changed,
 * even in large files) and printed as hunks of removed and added lines.
 */

export type Edit = { readonly kind: 'same' | 'removed' | 'added'; readonly line: string };

/** Beyond this many changed lines the middle is shown as one replaced block instead of aligned. */
const maxDistance = 2000;

/** Myers' O((N+M)D) shortest edit script; null when the texts differ in more than maxDistance lines. */
export function align(a: readonly string[], b: readonly string[]): Edit[] | null {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const v = new Int32Array(2 * max + 2);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= Math.min(max, maxDistance) && found < 0; d++) {
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v[max + k - 1] as number) < (v[max + k + 1] as number));
      let x = down ? (v[max + k + 1] as number) : (v[max + k - 1] as number) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[max + k] = x;
      if (x >= n && y >= m) found = d;
    }
    trace.push(v.slice(max - d, max + d + 1));
  }
  if (found < 0) return null;
  const edits: Edit[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const previous = trace[d - 1] as Int32Array;
    const at = (k: number): number => previous[k + d - 1] as number;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      edits.push({ kind: 'same', line: a[--x] as string });
      y--;
    }
    if (x === prevX) edits.push({ kind: 'added', line: b[--y] as string });
    else edits.push({ kind: 'removed', line: a[--x] as string });
  }
  while (x > 0 && y > 0) {
    edits.push({ kind: 'same', line: a[--x] as string });
    y--;
  }
  return edits.reverse();
}

function replaced(a: readonly string[], b: readonly string[]): Edit[] {
  return [...a.map((line): Edit => ({ kind: 'removed', line })), ...b.map((line): Edit => ({ kind: 'added', line }))];
}

/** Hunks of `- removed` / `+ added` lines with their starting line numbers, at most `maxLines` lines shown. */
export function lineDiff(before: string, after: string, maxLines = 40): string {
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const out: string[] = [];
  let lineA = start + 1;
  let lineB = start + 1;
  let inHunk = false;
  let shown = 0;
  let hidden = 0;
  const middleA = a.slice(start, endA);
  const middleB = b.slice(start, endB);
  for (const edit of align(middleA, middleB) ?? replaced(middleA, middleB)) {
    if (edit.kind === 'same') {
      lineA++;
      lineB++;
      inHunk = false;
      continue;
    }
    if (shown >= maxLines) {
      hidden++;
      continue;
    }
    if (!inHunk) out.push(`  @@ -${lineA} +${lineB} @@`);
    inHunk = true;
    out.push(`  ${edit.kind === 'removed' ? '-' : '+'} ${edit.line}`);
    shown++;
    if (edit.kind === 'removed') lineA++;
    else lineB++;
  }
  if (hidden > 0) out.push(`  ... ${hidden} more changed line(s)`);
  return out.join('\n');
}
