import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJwt } from '../../../runtime/tokens/jwt.js';
import { createTestProject, demoSchemaSql, startTestHost, type TestHost, type TestProject } from '../../helpers/platform.js';
import { errorBody, restCaller, userToken, type ApiResponse } from './http.js';

/**
 * The data API over HTTP on the real host against the demo schema: credentials, row-level
 * security through tokens, reads, embeds, counts, media types, profiles, writes, RPC and errors.
 */

let host: TestHost;
let project: TestProject;
let call: ReturnType<typeof restCaller>;
let service: string;
const ALICE = '00000000-0000-0000-0000-00000000000a';
const BOB = '00000000-0000-0000-0000-00000000000b';

beforeAll(async () => {
  host = await startTestHost();
  const sql = await demoSchemaSql();
  project = await createTestProject(host.platform, { host: host.host, sql, generate: true });
  call = restCaller(project);
  service = project.keys.service_key;
});
afterAll(() => host?.close());

/** Methods fetch refuses to send. */
function rawStatus(method: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${project.url}/rest/v1${path}`, { method, headers: { apikey: project.keys.anon_key } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

function rows(res: ApiResponse): unknown {
  expect(res.status, res.text).toBeLessThan(300);
  return res.json;
}

describe('credentials', () => {
  it('refuses a request without any key: 401 PGRST302', async () => {
    const res = await call('/authors', { apikey: null });
    expect(res.status).toBe(401);
    expect(res.json).toEqual(errorBody('PGRST302', 'No API key found in request', null, expect.any(String)));
  });

  it('refuses a malformed, forged, expired or foreign token with 401 and a code', async () => {
    const garbage = await call('/authors', { apikey: 'not-a-jwt' });
    expect(garbage.status).toBe(401);
    expect((garbage.json as { code: string }).code).toBe('PGRST301');
    expect(garbage.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);

    const now = Math.floor(Date.now() / 1000);
    const expired = signJwt(project.record.jwtSecret, { role: 'authenticated', sub: ALICE, exp: now - 3600 });
    const late = await call('/authors', { token: expired });
    expect(late.status).toBe(401);
    expect(late.json).toEqual(errorBody('PGRST303', 'JWT expired'));

    const foreign = signJwt('another-projects-secret-0123456789abcdef', { role: 'anon', exp: now + 60 });
    const other = await call('/authors', { apikey: foreign });
    expect(other.status).toBe(401);
    expect((other.json as { code: string }).code).toBe('PGRST301');

    const tampered = `${service.slice(0, -3)}AAA`;
    expect((await call('/authors', { apikey: tampered })).status).toBe(401);
  });

  it('refuses a role the authenticator may not switch to (403 42501) and one that does not exist (401 22023)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const superuser = signJwt(project.record.jwtSecret, { role: 'postgres', exp: now + 60 });
    const res = await call('/authors', { token: superuser });
    expect([res.status, res.json]).toEqual([403, errorBody('42501', 'permission denied to set role "postgres"')]);
    const ghost = signJwt(project.record.jwtSecret, { role: 'no_such_role_here', exp: now + 60 });
    const missing = await call('/authors', { token: ghost });
    expect([missing.status, missing.json]).toEqual([401, errorBody('22023', 'role "no_such_role_here" does not exist')]);
  });

  it('lets the bearer token decide the role over the apikey, and accepts ?apikey=', async () => {
    const asAnon = rows(await call('/posts?select=id&order=id')) as unknown[];
    expect(asAnon).toHaveLength(4);
    const asService = rows(await call('/posts?select=id&order=id', { token: service })) as unknown[];
    expect(asService).toHaveLength(5);
    const byParam = await call(`/authors?select=id&apikey=${project.keys.anon_key}`, { apikey: null });
    expect(byParam.json).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
  });
});

describe('row-level security through tokens', () => {
  it("gives each user only their rows; anon is limited by policies; service_role bypasses", async () => {
    const alice = userToken(project, ALICE);
    const bob = userToken(project, BOB);
    const a = await call('/todos?select=task,user_id', { method: 'POST', token: alice, body: [{ task: 'a1' }, { task: 'a2' }] });
    expect(a.status).toBe(201);
    expect(a.json).toEqual([{ task: 'a1', user_id: ALICE }, { task: 'a2', user_id: ALICE }]);
    expect((await call('/todos', { method: 'POST', token: bob, body: { task: 'b1' } })).status).toBe(201);

    expect(await call('/todos?select=task&order=task', { token: alice }).then(rows)).toEqual([{ task: 'a1' }, { task: 'a2' }]);
    expect(await call('/todos?select=task', { token: bob }).then(rows)).toEqual([{ task: 'b1' }]);
    expect(await call('/todos').then(rows)).toEqual([]);
    expect(await call('/todos?select=task&order=task', { token: service }).then(rows)).toEqual([{ task: 'a1' }, { task: 'a2' }, { task: 'b1' }]);

    // Bob can neither write as Alice nor touch her rows.
    const forged = await call('/todos', { method: 'POST', token: bob, body: { task: 'x', user_id: ALICE } });
    expect(forged.status).toBe(403);
    expect(forged.json).toEqual(errorBody('42501', 'new row violates row-level security policy for table "todos"'));
    const stolen = await call('/todos?task=eq.a1', { method: 'PATCH', token: bob, body: { done: true } });
    expect(stolen.status).toBe(200);
    expect(stolen.json).toEqual([]);
    expect((await call('/todos?task=eq.a1', { method: 'DELETE', token: bob })).json).toEqual([]);

    // auth.uid() inside a function.
    expect((await call('/rpc/my_todo_count', { method: 'POST', token: alice, body: {} })).json).toBe(2);
    expect((await call('/rpc/my_todo_count?only_open=true', { token: bob })).json).toBe(1);
    expect((await call('/rpc/my_todo_count', { method: 'POST', body: {} })).json).toBe(0);

    // anon may read published posts only, and may not write where no policy allows it.
    expect(await call('/posts?select=id&status=eq.draft').then(rows)).toEqual([]);
    const anonInsert = await call('/authors', { method: 'POST', body: { name: 'Eve' } });
    expect(anonInsert.status).toBe(403);
    expect((anonInsert.json as { code: string }).code).toBe('42501');
    await call('/todos', { method: 'DELETE', token: service });
  });
});

describe('reads', () => {
  it('selects columns, all columns, aliases, casts and JSON paths', async () => {
    expect(await call('/authors?select=id,name&order=id&limit=1').then(rows)).toEqual([{ id: 1, name: 'Ada Lovelace' }]);
    expect(await call('/authors?id=eq.2').then(rows)).toEqual([{ id: 2, name: 'Alan Turing', bio: 'Asked whether machines can think.' }]);
    expect(await call('/authors?select=&id=eq.2').then(rows)).toEqual([{ id: 2, name: 'Alan Turing', bio: 'Asked whether machines can think.' }]);
    expect(await call('/authors?select=author:name,key:id::text&id=eq.3').then(rows)).toEqual([{ author: 'Grace Hopper', key: '3' }]);
    expect(await call('/posts?select=id,meta->reading_minutes,lang:meta->>lang&id=eq.1').then(rows))
      .toEqual([{ id: 1, reading_minutes: 7, lang: 'en' }]);
    expect(await call('/posts?select=id&meta->>lang=eq.en&meta->reading_minutes=gt.10&order=id').then(rows))
      .toEqual([{ id: 2 }, { id: 3 }]);
  });

  it('embeds to-one as an object, to-many as an array, many-to-many through the junction', async () => {
    expect(await call('/posts?select=title,authors(name)&id=eq.5').then(rows)).toEqual([{ title: 'The first bug', authors: { name: 'Grace Hopper' } }]);
    expect(await call('/authors?select=name,posts(id)&id=eq.1&posts.order=id').then(rows))
      .toEqual([{ name: 'Ada Lovelace', posts: [{ id: 1 }, { id: 2 }] }]);
    expect(await call('/posts?select=id,tags(name)&id=eq.1&tags.order=name').then(rows))
      .toEqual([{ id: 1, tags: [{ name: 'hardware' }, { name: 'history' }] }]);
    // nested, aliased, hinted and spread embeds
    expect(await call('/authors?select=name,writings:posts(title,tags(name))&id=eq.3').then(rows))
      .toEqual([{ name: 'Grace Hopper', writings: [{ title: 'The first bug', tags: expect.arrayContaining([{ name: 'history' }, { name: 'hardware' }]) }] }]);
    expect(await call('/posts?select=id,writer:authors!posts_author_id_fkey(name)&id=eq.3').then(rows))
      .toEqual([{ id: 3, writer: { name: 'Alan Turing' } }]);
    expect(await call('/posts?select=id,authors!author_id(id)&id=eq.3').then(rows)).toEqual([{ id: 3, authors: { id: 2 } }]);
    expect(await call('/posts?select=title,...authors(author:name)&id=eq.2').then(rows))
      .toEqual([{ title: 'Bernoulli numbers', author: 'Ada Lovelace' }]);
    // RLS applies inside embeds too: anon does not see the draft.
    expect(await call('/authors?select=posts(id)&id=eq.2').then(rows)).toEqual([{ posts: [{ id: 3 }] }]);
  });

  it('filters, orders and limits embedded resources; !inner and null filters filter the parents', async () => {
    expect(await call('/authors?select=id,posts(id)&posts.order=id.desc&posts.limit=1&order=id').then(rows))
      .toEqual([{ id: 1, posts: [{ id: 2 }] }, { id: 2, posts: [{ id: 3 }] }, { id: 3, posts: [{ id: 5 }] }]);
    expect(await call('/authors?select=id,posts(id)&posts.id=gt.2&order=id').then(rows))
      .toEqual([{ id: 1, posts: [] }, { id: 2, posts: [{ id: 3 }] }, { id: 3, posts: [{ id: 5 }] }]);
    expect(await call('/authors?select=id,posts!inner(id)&posts.id=gt.2&order=id').then(rows))
      .toEqual([{ id: 2, posts: [{ id: 3 }] }, { id: 3, posts: [{ id: 5 }] }]);
    expect(await call('/authors?select=id,posts(id)&posts.title=ilike.*NUMBERS*&posts=not.is.null').then(rows))
      .toEqual([{ id: 1, posts: [{ id: 2 }] }]);
    expect(await call('/posts?select=id,authors(name)&order=authors(name).desc,id&limit=2').then(rows))
      .toEqual([{ id: 5, authors: { name: 'Grace Hopper' } }, { id: 3, authors: { name: 'Alan Turing' } }]);
    expect(await call('/posts?select=id,tags(name)&tags.or=(name.eq.ai,name.eq.math)&id=in.(2,3)&order=id').then(rows))
      .toEqual([{ id: 2, tags: [{ name: 'math' }] }, { id: 3, tags: [{ name: 'ai' }] }]);
  });

  it('applies every comparison operator', async () => {
    const ids = async (query: string): Promise<number[]> =>
      ((await call(`/posts?select=id&order=id&${query}`, { token: service }).then(rows)) as { id: number }[]).map((r) => r.id);
    expect(await ids('id=eq.2')).toEqual([2]);
    expect(await ids('id=neq.2')).toEqual([1, 3, 4, 5]);
    expect(await ids('id=gt.3')).toEqual([4, 5]);
    expect(await ids('id=gte.3')).toEqual([3, 4, 5]);
    expect(await ids('id=lt.2')).toEqual([1]);
    expect(await ids('id=lte.2')).toEqual([1, 2]);
    expect(await ids('title=like.*Engine*')).toEqual([1]);
    expect(await ids('title=ilike.*NUMBERS*')).toEqual([2, 4]);
    expect(await ids('title=match.^[BO]')).toEqual([2, 4]);
    expect(await ids('title=imatch.^the')).toEqual([5]);
    expect(await ids('id=in.(1,3,9)')).toEqual([1, 3]);
    expect(await ids('id=in.()')).toEqual([]);
    expect(await ids('status=is.null')).toEqual([]);
    expect(await ids('status=not.is.null')).toEqual([1, 2, 3, 4, 5]);
    expect(await ids('status=isdistinct.published')).toEqual([4]);
    expect(await ids('status=not.eq.published')).toEqual([4]);
    expect(await ids('search=fts(english).engine')).toEqual([1, 2]);
    expect(await ids('search=plfts.finite means')).toEqual([4]);
    expect(await ids('search=phfts(english).machines think')).toEqual([3]);
    expect(await ids('search=wfts.moth -engine')).toEqual([5]);
    expect(await ids('title=fts.bug')).toEqual([5]);
    expect(await ids('meta=cs.{"lang":"en","reading_minutes":3}')).toEqual([5]);
    expect(await ids('meta=cd.{"lang":"en","reading_minutes":7,"x":1}')).toEqual([1]);
    expect(await ids('id=gt(any).{3,4}')).toEqual([4, 5]);
    expect(await ids('title=like(all).{*n*,*e*}')).toEqual([1, 2, 3, 4]);
    expect(await ids('id=not.in.(1,2,3)')).toEqual([4, 5]);
  });

  it('combines or/and, nested and negated, with quoted values', async () => {
    const ids = async (query: string): Promise<number[]> =>
      ((await call(`/posts?select=id&order=id&${query}`, { token: service }).then(rows)) as { id: number }[]).map((r) => r.id);
    expect(await ids('or=(id.eq.1,id.eq.5)')).toEqual([1, 5]);
    expect(await ids('and=(id.gte.2,id.lte.3)')).toEqual([2, 3]);
    expect(await ids('or=(id.eq.1,and(id.gt.3,status.eq.draft))')).toEqual([1, 4]);
    expect(await ids('not.or=(id.eq.1,id.eq.5)')).toEqual([2, 3, 4]);
    expect(await ids('or=(id.eq.1,not.and(id.gt.1,id.lt.5))')).toEqual([1, 5]);
    expect(await ids('or=(title.eq."Notes on the Analytical Engine",title.in.("The first bug","x,y"))')).toEqual([1, 5]);
    expect(await ids('or=(title.like.*bug*,title.ilike.*BERNOULLI*)')).toEqual([2, 5]);
    expect(await ids('id=gt.1&or=(author_id.eq.1,author_id.eq.3)')).toEqual([2, 5]);
  });

  it('orders, limits, offsets and honours the Range header', async () => {
    expect(await call('/posts?select=id&order=author_id.desc,id.asc').then(rows)).toEqual([{ id: 5 }, { id: 3 }, { id: 1 }, { id: 2 }]);
    const page = await call('/posts?select=id&order=id&limit=2&offset=1');
    expect(page.json).toEqual([{ id: 2 }, { id: 3 }]);
    expect(page.headers.get('content-range')).toBe('1-2/*');
    const ranged = await call('/posts?select=id&order=id', { headers: { Range: '1-2' } });
    expect(ranged.json).toEqual([{ id: 2 }, { id: 3 }]);
    expect(ranged.headers.get('content-range')).toBe('1-2/*');
    expect((await call('/authors?select=bio&order=bio.desc.nullslast&limit=1').then(rows))).toEqual([{ bio: 'Wrote the first program.' }]);
    expect((await call('/posts?select=id&limit=0')).headers.get('content-range')).toBe('*/*');
    const negative = await call('/posts?limit=-1');
    expect(negative.status).toBe(416);
    expect(negative.json).toEqual(errorBody('PGRST103', 'Requested range not satisfiable', 'Limit should be greater than or equal to zero.'));
  });

  it('counts exactly, by plan and by estimate, as ?count= and as Prefer', async () => {
    const exact = await call('/posts?select=id&order=id&limit=2', { headers: { Prefer: 'count=exact' } });
    expect(exact.status).toBe(206);
    expect(exact.headers.get('content-range')).toBe('0-1/4');
    expect(exact.headers.get('preference-applied')).toBe('count=exact');
    const param = await call('/posts?select=id&order=id&count=exact');
    expect(param.status).toBe(200);
    expect(param.headers.get('content-range')).toBe('0-3/4');
    const empty = await call('/posts?id=eq.99&count=exact');
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual([]);
    expect(empty.headers.get('content-range')).toBe('*/0');
    expect((await call('/posts?id=eq.99')).headers.get('content-range')).toBe('*/*');
    const past = await call('/posts?offset=10', { headers: { Prefer: 'count=exact' } });
    expect(past.status).toBe(416);
    expect(past.json).toEqual(errorBody('PGRST103', 'Requested range not satisfiable', 'An offset of 10 was requested, but there are only 4 rows.'));
    expect(past.headers.get('content-range')).toBe('*/4');
    const atEnd = await call('/posts?offset=4&count=exact');
    expect(atEnd.status).toBe(206);
    expect(atEnd.headers.get('content-range')).toBe('*/4');

    const planned = await call('/posts?select=id&limit=1&count=planned');
    expect(planned.headers.get('content-range')).toMatch(/^0-0\/\d+$/);
    expect(planned.headers.get('preference-applied')).toBe('count=planned');
    const estimated = await call('/posts?select=id&limit=1', { headers: { Prefer: 'count=estimated' } });
    // Below the threshold the estimate is the exact count.
    expect(estimated.headers.get('content-range')).toBe('0-0/4');
    expect(estimated.status).toBe(206);

    const head = await call('/posts?select=id', { method: 'HEAD', headers: { Prefer: 'count=exact' } });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-range')).toBe('0-3/4');
  });
});

describe('media types and profiles', () => {
  it('returns one object for vnd.pgrst.object+json, PGRST116 otherwise', async () => {
    const one = await call('/authors?select=name&id=eq.1', { headers: { Accept: 'application/vnd.pgrst.object+json' } });
    expect(one.status).toBe(200);
    expect(one.json).toEqual({ name: 'Ada Lovelace' });
    expect(one.headers.get('content-type')).toBe('application/vnd.pgrst.object+json; charset=utf-8');
    const many = await call('/authors', { headers: { Accept: 'application/vnd.pgrst.object+json' } });
    expect(many.status).toBe(406);
    expect(many.json).toEqual(errorBody('PGRST116', 'Cannot coerce the result to a single JSON object', 'The result contains 3 rows'));
    const none = await call('/authors?id=eq.9', { headers: { Accept: 'application/vnd.pgrst.object+json' } });
    expect(none.json).toEqual(errorBody('PGRST116', 'Cannot coerce the result to a single JSON object', 'The result contains 0 rows'));
  });

  it('changes nothing when a singular PATCH or DELETE matches two rows', async () => {
    const singular = { Accept: 'application/vnd.pgrst.object+json' };
    const patch = await call('/authors?id=in.(1,2)', { method: 'PATCH', token: service, headers: singular, body: { bio: 'changed' } });
    expect(patch.status).toBe(406);
    expect((patch.json as { details: string }).details).toBe('The result contains 2 rows');
    const del = await call('/tags?id=in.(3,4)', { method: 'DELETE', token: service, headers: singular });
    expect(del.status).toBe(406);
    expect(await call('/authors?select=bio&id=in.(1,2)&order=id').then(rows))
      .toEqual([{ bio: 'Wrote the first program.' }, { bio: 'Asked whether machines can think.' }]);
    expect(await call('/tags?select=id&id=in.(3,4)').then(rows)).toEqual([{ id: 3 }, { id: 4 }]);
    const ok = await call('/authors?id=eq.3&select=name,bio', { method: 'PATCH', token: service, headers: singular, body: { bio: 'Admiral.' } });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ name: 'Grace Hopper', bio: 'Admiral.' });
    await call('/authors?id=eq.3', { method: 'PATCH', token: service, body: { bio: 'Made computers speak English.' } });
  });

  it('answers text/csv', async () => {
    const csv = await call('/authors?select=id,name,bio&order=id&limit=2', { headers: { Accept: 'text/csv' } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.text).toBe('id,name,bio\n1,"Ada Lovelace","Wrote the first program."\n2,"Alan Turing","Asked whether machines can think."');
    const unknown = await call('/authors', { headers: { Accept: 'application/xml' } });
    expect(unknown.status).toBe(406);
    expect(unknown.json).toEqual(errorBody('PGRST107', 'None of these media types are available: application/xml'));
  });

  it('accepts the exposed schema in Accept-Profile/Content-Profile and refuses others with 406 PGRST106', async () => {
    const ok = await call('/authors?select=id&id=eq.1', { headers: { 'Accept-Profile': 'public' } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-profile')).toBe('public');
    // One exposed schema: PostgREST names it only when the client sent its method's profile header.
    expect((await call('/authors?select=id&id=eq.1')).headers.get('content-profile')).toBeNull();
    expect((await call('/authors?select=id&id=eq.1', { headers: { 'Content-Profile': 'public' } })).headers.get('content-profile')).toBeNull();
    const bad = await call('/authors', { headers: { 'Accept-Profile': 'auth' } });
    expect(bad.status).toBe(406);
    expect(bad.json).toEqual(errorBody('PGRST106', 'Invalid schema: auth', null, 'Only the following schemas are exposed: public'));
    const write = await call('/tags', { method: 'POST', token: service, headers: { 'Content-Profile': 'private' }, body: { name: 'x' } });
    expect(write.status).toBe(406);
    expect((write.json as { code: string }).code).toBe('PGRST106');
  });

  it('exposes the data API headers to browsers', async () => {
    const res = await call('/authors?select=id&limit=1', { headers: { Origin: 'https://app.example' } });
    // PostgREST's CorsSpec: any origin is answered `*`; successful answers vary by what shapes them, not by Origin.
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('vary')).toBe('Accept, Prefer, Range');
    const refused = await call('/authors?select=nope', { headers: { Origin: 'https://app.example' } });
    expect([refused.status, refused.headers.get('access-control-allow-origin'), refused.headers.get('vary')]).toEqual([400, '*', null]);
    expect((await call('/authors', { method: 'OPTIONS' })).headers.get('vary')).toBe('Accept, Prefer, Range');
    expect(res.headers.get('access-control-expose-headers')).toContain('Content-Range');
    const preflight = await fetch(`${project.url}/rest/v1/authors`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'apikey,content-profile,prefer' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toBe('apikey,content-profile,prefer');
  });
});

describe('writes', () => {
  it('inserts one row or many, returning the representation with 201', async () => {
    const one = await call('/tags?select=name', { method: 'POST', token: service, body: { name: 'w-one' } });
    expect(one.status).toBe(201);
    expect(one.json).toEqual([{ name: 'w-one' }]);
    const bulk = await call('/tags?select=name', { method: 'POST', token: service, body: [{ name: 'w-two' }, { name: 'w-three' }] });
    expect(bulk.status).toBe(201);
    expect(bulk.json).toEqual([{ name: 'w-two' }, { name: 'w-three' }]);
    expect(bulk.headers.get('content-range')).toBe('*/*');
    const empty = await call('/tags', { method: 'POST', token: service, body: [] });
    expect(empty.status).toBe(201);
    expect(empty.json).toEqual([]);
    await call('/tags?name=like.w-*', { method: 'DELETE', token: service });
  });

  it('embeds related rows in the representation of a write', async () => {
    const created = await call('/posts?select=title,status,authors(name),tags(name)', {
      method: 'POST', token: service, body: { author_id: 2, title: 'w-embedded' },
    });
    expect(created.status).toBe(201);
    expect(created.json).toEqual([{ title: 'w-embedded', status: 'draft', authors: { name: 'Alan Turing' }, tags: [] }]);
    const single = await call('/posts?title=eq.w-embedded&select=title,writer:authors(name)', {
      method: 'PATCH', token: service, headers: { Accept: 'application/vnd.pgrst.object+json' }, body: { author_id: 3 },
    });
    expect(single.json).toEqual({ title: 'w-embedded', writer: { name: 'Grace Hopper' } });
    const gone = await call('/posts?title=eq.w-embedded&select=id,authors(id)', { method: 'DELETE', token: service });
    expect(gone.json).toEqual([{ id: expect.any(Number), authors: { id: 3 } }]);
  });

  it('uses defaults for missing keys with missing=default and columns=, nulls otherwise', async () => {
    const alice = userToken(project, ALICE);
    const withDefault = await call('/todos?columns=task,done&select=task,done,user_id', {
      method: 'POST', token: alice, headers: { Prefer: 'missing=default' }, body: [{ task: 'd1', done: true }, { task: 'd2' }],
    });
    expect(withDefault.status).toBe(201);
    expect(withDefault.json).toEqual([{ task: 'd1', done: true, user_id: ALICE }, { task: 'd2', done: false, user_id: ALICE }]);
    expect(withDefault.headers.get('preference-applied')).toBe('missing=default');
    const asNull = await call('/todos?columns=task,done', { method: 'POST', token: alice, body: [{ task: 'd3' }] });
    expect(asNull.status).toBe(400);
    expect((asNull.json as { code: string }).code).toBe('23502');
    await call('/todos', { method: 'DELETE', token: alice });
  });

  it('returns nothing with return=minimal and a Location with return=headers-only', async () => {
    const minimal = await call('/tags', { method: 'POST', token: service, headers: { Prefer: 'return=minimal' }, body: { name: 'w-min' } });
    expect(minimal.status).toBe(201);
    expect(minimal.text).toBe('');
    expect(minimal.headers.get('preference-applied')).toBe('return=minimal');
    const located = await call('/tags', { method: 'POST', token: service, headers: { Prefer: 'return=headers-only' }, body: { id: 77, name: 'w-loc' } });
    expect(located.status).toBe(201);
    expect(located.text).toBe('');
    expect(located.headers.get('location')).toBe('/tags?id=eq.77');
    await call('/tags?name=like.w-*', { method: 'DELETE', token: service });
  });

  it('upserts with merge-duplicates and ignore-duplicates, on the key or on_conflict', async () => {
    const merged = await call('/tags?select=id,name', {
      method: 'POST', token: service, headers: { Prefer: 'resolution=merge-duplicates' }, body: [{ id: 4, name: 'hardware' }, { id: 60, name: 'w-new' }],
    });
    expect(merged.status).toBe(201);
    expect(merged.json).toEqual([{ id: 4, name: 'hardware' }, { id: 60, name: 'w-new' }]);
    const allUpdates = await call('/tags?select=id,name', { method: 'POST', token: service, headers: { Prefer: 'resolution=merge-duplicates' }, body: { id: 60, name: 'w-renamed' } });
    expect(allUpdates.status).toBe(200);
    expect(allUpdates.json).toEqual([{ id: 60, name: 'w-renamed' }]);
    const ignored = await call('/tags?on_conflict=name&select=id,name', {
      method: 'POST', token: service, headers: { Prefer: 'resolution=ignore-duplicates' }, body: [{ id: 61, name: 'w-renamed' }, { id: 62, name: 'w-other' }],
    });
    expect(ignored.status).toBe(201);
    expect(ignored.json).toEqual([{ id: 62, name: 'w-other' }]);
    const byName = await call('/tags?on_conflict=name&select=id,name', {
      method: 'POST', token: service, headers: { Prefer: 'resolution=merge-duplicates' }, body: { id: 60, name: 'w-other' },
    });
    expect(byName.status).toBe(409);
    await call('/tags?name=like.w-*', { method: 'DELETE', token: service });
  });

  it('updates filtered rows with PATCH and PUT, and every row without a filter', async () => {
    await call('/tags', { method: 'POST', token: service, body: [{ id: 70, name: 'w-a' }, { id: 71, name: 'w-b' }] });
    const patched = await call('/tags?id=eq.70&select=name', { method: 'PATCH', token: service, body: { name: 'w-a2' } });
    expect(patched.status).toBe(200);
    expect(patched.json).toEqual([{ name: 'w-a2' }]);
    expect(patched.headers.get('content-range')).toBe('0-0/*');
    const put = await call('/tags?id=eq.71&select=name', { method: 'PUT', token: service, body: { name: 'w-b2' } });
    expect(put.status).toBe(200);
    expect(put.json).toEqual([{ name: 'w-b2' }]);
    const minimal = await call('/tags?id=eq.71', { method: 'PATCH', token: service, headers: { Prefer: 'return=minimal' }, body: { name: 'w-b3' } });
    expect(minimal.status).toBe(204);
    expect(minimal.text).toBe('');

    // Without a filter PATCH updates every row the role may update (here: as Alice, her todos only).
    const alice = userToken(project, ALICE);
    await call('/todos', { method: 'POST', token: alice, body: [{ task: 'u1' }, { task: 'u2' }] });
    await call('/todos', { method: 'POST', token: userToken(project, BOB), body: { task: 'bob keeps' } });
    const all = await call('/todos?select=task,done', { method: 'PATCH', token: alice, body: { done: true } });
    expect(all.json).toEqual(expect.arrayContaining([{ task: 'u1', done: true }, { task: 'u2', done: true }]));
    expect((all.json as unknown[]).length).toBe(2);
    expect(await call('/todos?select=done', { token: userToken(project, BOB) }).then(rows)).toEqual([{ done: false }]);
    const counted = await call('/todos', { method: 'PATCH', token: alice, headers: { Prefer: 'count=exact, return=minimal' }, body: { done: false } });
    expect(counted.status).toBe(204);
    expect(counted.headers.get('content-range')).toBe('0-1/2');
    await call('/todos', { method: 'DELETE', token: service });
    await call('/tags?name=like.w-*', { method: 'DELETE', token: service });
  });

  it('deletes filtered rows, and every row without a filter', async () => {
    await call('/tags', { method: 'POST', token: service, body: [{ id: 80, name: 'w-d1' }, { id: 81, name: 'w-d2' }, { id: 82, name: 'w-d3' }] });
    const one = await call('/tags?id=eq.80&select=name', { method: 'DELETE', token: service });
    expect(one.status).toBe(200);
    expect(one.json).toEqual([{ name: 'w-d1' }]);
    const alice = userToken(project, ALICE);
    await call('/todos', { method: 'POST', token: alice, body: [{ task: 'x1' }, { task: 'x2' }] });
    await call('/todos', { method: 'POST', token: userToken(project, BOB), body: { task: 'bob keeps' } });
    const all = await call('/todos?select=task', { method: 'DELETE', token: alice, headers: { Prefer: 'return=minimal' } });
    expect(all.status).toBe(204);
    expect(await call('/todos?select=task', { token: service }).then(rows)).toEqual([{ task: 'bob keeps' }]);
    await call('/todos', { method: 'DELETE', token: service });
    await call('/tags?name=like.w-*', { method: 'DELETE', token: service });
  });

  it('refuses invalid bodies, unknown columns and other methods', async () => {
    const invalid = await call('/tags', { method: 'POST', token: service, body: '{"name": ' });
    expect(invalid.status).toBe(400);
    expect(invalid.json).toEqual(errorBody('PGRST102', 'Empty or invalid json'));
    const unknown = await call('/tags', { method: 'POST', token: service, body: { nope: 1 } });
    expect(unknown.status).toBe(400);
    expect(unknown.json).toEqual(errorBody('PGRST204', "Could not find the 'nope' column of 'tags' in the schema cache"));
    const unknownFilter = await call('/tags?nope=eq.1');
    expect(unknownFilter.status).toBe(400);
    expect(unknownFilter.json).toEqual(errorBody('42703', 'column tags.nope does not exist'));
    const keys = await call('/tags', { method: 'POST', token: service, body: [{ name: 'a' }, { id: 1 }] });
    expect(keys.json).toEqual(errorBody('PGRST102', 'All object keys must match'));
    expect(await rawStatus('TRACE', '/tags')).toBe(405);
    const copy = await call('/tags', { method: 'COPY' });
    expect(copy.status).toBe(405);
    expect(copy.json).toEqual(errorBody('PGRST117', 'Unsupported HTTP method: COPY'));
    const missing = await call('/nothing');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual(errorBody('42P01', "Could not find the table 'public.nothing' in the schema cache"));
  });
});

describe('constraint errors', () => {
  it('maps 23505 and 23503 to 409, 23502 and 23514 to 400, with the full error body', async () => {
    const dup = await call('/tags', { method: 'POST', token: service, body: { name: 'history' } });
    expect(dup.status).toBe(409);
    expect(dup.json).toEqual(errorBody('23505', 'duplicate key value violates unique constraint "tags_name_key"', 'Key (name)=(history) already exists.'));
    const fk = await call('/post_tags', { method: 'POST', token: service, body: { post_id: 1, tag_id: 999 } });
    expect(fk.status).toBe(409);
    expect(fk.json).toEqual(errorBody('23503', 'insert or update on table "post_tags" violates foreign key constraint "post_tags_tag_id_fkey"', 'Key (tag_id)=(999) is not present in table "tags".'));
    const nn = await call('/authors', { method: 'POST', token: service, body: { name: null } });
    expect(nn.status).toBe(400);
    expect((nn.json as { code: string; message: string }).message).toBe('null value in column "name" of relation "authors" violates not-null constraint');
    const check = await call('/comments', { method: 'POST', token: userToken(project, ALICE), body: { post_id: 1, body: '' } });
    expect(check.status).toBe(400);
    // PostgreSQL leaves out the failing row's values on a table with row-level security.
    expect(check.json).toEqual(errorBody('23514', 'new row for relation "comments" violates check constraint "comments_body_check"'));
    // A failing bulk insert writes nothing.
    const partial = await call('/tags', { method: 'POST', token: service, body: [{ name: 'w-fine' }, { name: 'history' }] });
    expect(partial.status).toBe(409);
    expect(await call('/tags?name=eq.w-fine').then(rows)).toEqual([]);
    expect(dup.text).not.toMatch(/at .*\.ts/);
  });
});

describe('rpc on the demo', () => {
  it('calls with named arguments and defaults, over POST and GET', async () => {
    expect((await call('/rpc/add_numbers', { method: 'POST', body: { a: 2, b: 3 } })).json).toBe(5);
    expect((await call('/rpc/add_numbers', { method: 'POST', body: { a: 2 } })).json).toBe(3);
    expect((await call('/rpc/add_numbers?a=40&b=2')).json).toBe(42);
    const unknown = await call('/rpc/add_numbers', { method: 'POST', body: { a: 1, c: 2 } });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual(errorBody(
      'PGRST202', 'Could not find the function public.add_numbers(a, c) in the schema cache',
      'Searched for the function public.add_numbers with parameters a, c or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
      expect.anything(),
    ));
  });

  it('returns SETOF rows filtered, ordered, limited and counted like a table', async () => {
    const found = await call('/rpc/search_posts?q=engine&select=id,title&order=id.desc', { headers: { Prefer: 'count=exact' } });
    expect(found.status).toBe(200);
    expect(found.json).toEqual([{ id: 2, title: 'Bernoulli numbers' }, { id: 1, title: 'Notes on the Analytical Engine' }]);
    expect(found.headers.get('content-range')).toBe('0-1/2');
    const filtered = await call('/rpc/search_posts?select=id,authors(name)&id=eq.2', { method: 'POST', body: { q: 'engine' } });
    expect(filtered.json).toEqual([{ id: 2, authors: { name: 'Ada Lovelace' } }]);
  });
});

describe('hostile requests', () => {
  it('answers clear 4xx errors, never a 500, for odd paths, deep nesting, long values and big bodies', async () => {
    const unicode = await call(`/${encodeURIComponent('tâble; drop')}`);
    expect(unicode.status).toBe(404);
    expect(unicode.json).toEqual(errorBody('42P01', "Could not find the table 'public.tâble; drop' in the schema cache"));
    const deeper = await call('/authors/1');
    expect(deeper.status).toBe(404);
    expect((deeper.json as { code: string }).code).toBe('PGRST125');
    const nested = `${'or=('.repeat(40)}id.eq.1${')'.repeat(40)}`;
    const deep = await call(`/authors?${nested}`);
    expect(deep.status).toBe(400);
    expect((deep.json as { code: string }).code).toBe('PGRST100');
    const long = await call(`/authors?select=id&name=eq.${'x'.repeat(8_000)}`);
    expect(long.status).toBe(200);
    expect(long.json).toEqual([]);
    const quotes = await call(`/authors?select=id&name=eq.${encodeURIComponent(`'; DROP TABLE authors; --"`)}`);
    expect(quotes.json).toEqual([]);
    const badCast = await call('/authors?select=id::text;drop');
    expect(badCast.status).toBe(400);
    const huge = await call('/tags', { method: 'POST', token: service, body: `[${'{"name":"x"},'.repeat(900_000)}{"name":"y"}]` });
    expect(huge.status).toBe(413);
    expect((huge.json as { code: string }).code).toBe('PGRST413');
    expect(await call('/authors?select=id&order=id&limit=1').then(rows)).toEqual([{ id: 1 }]);
  });
});
