import { describe, expect, it } from 'vitest';
import { requestNeedsExtension, type UnavailableExtension } from '../../../runtime/extensions/unavailable.js';
import type { ApiRequest } from '../../../runtime/rest/parse/ast.js';
import type { BodyShape } from '../../../runtime/rest/sql/statement.js';

const hooked: UnavailableExtension = { schema: 'public', tables: new Set(['posts']) };
const unknown: UnavailableExtension = { schema: 'public', tables: null };

function req(action: ApiRequest['action'], target: string, schema = 'public'): ApiRequest {
  return { action, target, schema } as ApiRequest;
}
function shape(relation: string | null, embeds: BodyShape[] = []): BodyShape {
  return { relation, embeds: embeds.map((e) => ({ ...e, key: 'k', toOne: false, spread: false })) } as BodyShape;
}

describe('requestNeedsExtension', () => {
  it('refuses the hooked table, read or written, and its rows wherever the body shows them', () => {
    expect(requestNeedsExtension(hooked, req('read', 'posts'), shape('public.posts'))).toBe(true);
    expect(requestNeedsExtension(hooked, req('delete', 'posts'), null)).toBe(true);
    expect(requestNeedsExtension(hooked, req('read', 'comments'), shape('public.comments', [shape('public.posts')]))).toBe(true);
    expect(requestNeedsExtension(hooked, req('call', 'my_posts'), shape('public.posts'))).toBe(true);
  });

  it('serves what the extension does not hook', () => {
    expect(requestNeedsExtension(hooked, req('read', 'notes'), shape('public.notes'))).toBe(false);
    expect(requestNeedsExtension(hooked, req('call', 'posts'), null)).toBe(false);
    expect(requestNeedsExtension(hooked, req('read', 'posts', 'other'), shape('other.posts'))).toBe(false);
  });

  it('refuses every table of its schema when its hooks cannot be read', () => {
    expect(requestNeedsExtension(unknown, req('read', 'notes'), shape('public.notes'))).toBe(true);
    expect(requestNeedsExtension(unknown, req('read', 'notes', 'other'), shape('other.notes'))).toBe(false);
  });
});
