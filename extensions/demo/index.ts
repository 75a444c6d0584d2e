// The demo project's own code: the generated server runs it, the compiler checks it against every migration.
// Walkthrough in docs/extensions.md.
import { defineExtension, ExtensionError, route, t } from 'gantry';
import type { Database, Json } from '../../generated/demo/database.types.js';

/** "  The   first bug " → "The first bug": titles are compared and searched as readers see them. */
function normaliseTitle(title: string): string {
  return title.trim().replace(/\s+/g, ' ');
}

/** Reading time at 200 words a minute, at least one. */
function readingMinutes(body: string): number {
  return Math.max(1, Math.ceil(body.split(/\s+/).filter(Boolean).length / 200));
}

function withReadingMinutes(meta: Json | undefined, body: string): Json {
  const object = typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? meta : {};
  return 'reading_minutes' in object ? object : { ...object, reading_minutes: readingMinutes(body) };
}

export default defineExtension<Database>()({
  tables: {
    posts: {
      beforeInsert(rows) {
        return rows.map((row) => {
          const title = normaliseTitle(row.title);
          if (title === '') throw new ExtensionError(422, 'title_required', 'A post needs a title');
          return { ...row, title, meta: withReadingMinutes(row.meta, row.body ?? '') };
        });
      },
      beforeUpdate(patch) {
        if (patch.title === undefined) return patch;
        const title = normaliseTitle(patch.title);
        if (title === '') throw new ExtensionError(422, 'title_required', 'A post needs a title');
        return { ...patch, title };
      },
    },
  },
  routes: {
    'publish-post': route({
      summary: 'Publishes a draft post',
      input: t.object({ post_id: t.integer({ minimum: 1, description: 'The draft to publish.' }) }),
      output: t.object({ id: t.integer(), title: t.string(), status: t.enum(['draft', 'published', 'archived']) }),
      async handler({ post_id }, ctx) {
        // Row-level security applies: only a role that may update posts (the service role, in the demo) finds the draft.
        // Typed from PostgreSQL's Describe of the query (generated/demo/extension-queries.ts): id is int8, a string from node-postgres.
        const [post] = await ctx.sql`
          UPDATE public.posts SET status = 'published' WHERE id = ${post_id} AND status = 'draft' RETURNING id, title, status`;
        if (!post) throw new ExtensionError(404, 'draft_not_found', `No draft post ${post_id} that you may publish`);
        return { id: Number(post.id), title: post.title, status: post.status };
      },
    }),
  },
});
