import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSqlSites } from '../../../runtime/extensions/sql-sites.js';
import { extensionProgram } from '../../../runtime/extensions/typecheck.js';
import { repoRoot } from '../../helpers/platform.js';

/** The query sites of an extension, found by the type checker (no database): what `migrate` and the gate describe. */

const source = `import { defineExtension, route, t, type ExtensionContext } from 'gantry';

async function count(ctx: ExtensionContext, table: string): Promise<number> {
  const [row] = await ctx.sql<{ n: number }>\`SELECT count(*)::int AS n FROM \${table}\`;
  return row?.n ?? 0;
}

export default defineExtension<Record<string, never>>()({
  routes: {
    close: route({
      input: t.object({ id: t.integer(), status: t.string() }),
      output: t.integer(),
      async handler({ id, status }, ctx) {
        await ctx.sql\`UPDATE tickets SET status = \${status} WHERE id = \${id} RETURNING id, title, status\`;
        const run = ctx.sql;
        await run\`SELECT 1\`;
        await String.raw\`SELECT 'not a query'\`;
        const parts = Object.assign(['SELECT ', ''], { raw: ['SELECT ', ''] });
        await ctx.sql(parts, id);
        return count(ctx, 'tickets');
      },
    }),
    mine: route({
      input: t.object({}),
      output: t.integer(),
      async handler(_input, { sql }) {
        const rows = await sql\`SELECT id FROM tickets\`;
        await sql.call(null, Object.assign([''], { raw: [''] }));
        return rows.length;
      },
    }),
  },
});
`;

let dir: string;
let built: NonNullable<ReturnType<typeof extensionProgram>>;

beforeAll(async () => {
  await fs.mkdir(path.join(repoRoot, 'test-output'), { recursive: true });
  dir = await fs.mkdtemp(path.join(repoRoot, 'test-output', 'sql-sites-'));
  const file = path.join(dir, 'extensions', 'tickets', 'index.ts');
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, source);
  built = extensionProgram({ extensionsDir: path.join(dir, 'extensions'), ref: 'tickets' })!;
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe('findSqlSites', () => {
  it('finds every template sent through the context, whatever holds it, and the uses it cannot know the text of', () => {
    const { program, files } = built;
    const sites = findSqlSites(program, files).map((site) =>
      site.kind === 'query'
        ? { at: `${site.line}:${site.col}`, text: site.text, params: site.paramCount, typeArguments: site.typeArguments.count }
        : { at: `${site.line}:${site.col}`, notCheckable: true },
    );
    expect(sites).toEqual([
      { at: '4:23', text: 'SELECT count(*)::int AS n FROM $1', params: 1, typeArguments: 1 },
      { at: '14:15', text: 'UPDATE tickets SET status = $1 WHERE id = $2 RETURNING id, title, status', params: 2, typeArguments: 0 },
      { at: '16:15', text: 'SELECT 1', params: 0, typeArguments: 0 },
      { at: '19:15', notCheckable: true },
      { at: '27:28', text: 'SELECT id FROM tickets', params: 0, typeArguments: 0 },
      { at: '28:15', notCheckable: true },
    ]);
  });

  it('gives where a type argument goes: after the tag, or after the row type written', () => {
    const { program, files } = built;
    const [annotated, bare] = findSqlSites(program, files);
    expect(annotated?.kind === 'query' && source.slice(annotated.typeArguments.end, annotated.typeArguments.end + 2)).toBe('>`');
    expect(bare?.kind === 'query' && source.slice(bare.typeArguments.end, bare.typeArguments.end + 2)).toBe('`U');
  });
});
