import { structuredPatch } from 'diff';

/**
 * Beyond this many changed lines jsdiff gives up (its Myers search costs O((N+M)·D)) and the file is shown as one
 * replaced block: two different 20,000-line texts take 0.3 s to give up on at 1,000 (1.7 s at 2,000), for a report
 * that shows a dozen lines of them; a few changes in such a file take 45 to 120 ms.
 */
const maxEditLength = 1000;

function replacedHunk(before: string[], after: string[]): { oldStart: number; newStart: number; lines: string[] } {
  return { oldStart: 1, newStart: 1, lines: [...before.map((line) => `-${line}`), ...after.map((line) => `+${line}`)] };
}

/**
 * Hunks of `- removed` / `+ added` lines (jsdiff's, without context) headed by their starting line numbers, at most
 * `maxLines` changed lines shown, then how many more there are.
 */
export function lineDiff(before: string, after: string, maxLines = 40): string {
  if (before === after) return '';
  const patch = structuredPatch('', '', before, after, undefined, undefined, { context: 0, maxEditLength });
  const hunks = patch?.hunks ?? [replacedHunk(before.split('\n'), after.split('\n'))];
  const out: string[] = [];
  let shown = 0;
  let hidden = 0;
  for (const hunk of hunks) {
    const changed = hunk.lines.filter((line) => line.startsWith('-') || line.startsWith('+'));
    const room = Math.max(0, maxLines - shown);
    if (room > 0) {
      // jsdiff's starts name the line where the hunk stands in each text (for an insertion: the line it precedes).
      out.push(`  @@ -${hunk.oldStart} +${hunk.newStart} @@`);
      for (const line of changed.slice(0, room)) out.push(`  ${line[0]} ${line.slice(1)}`);
    }
    shown += Math.min(room, changed.length);
    hidden += Math.max(0, changed.length - room);
  }
  if (hidden > 0) out.push(`  … ${hidden} more changed line(s)`);
  return out.join('\n');
}
