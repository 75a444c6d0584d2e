import { describe, expect, it } from 'vitest';
import { refinedRoute, requestRoute } from '../../../runtime/host/request-route.js';

describe('requestRoute', () => {
  it('names the API, the ref and a template without ids or query strings', () => {
    expect([
      '/v1/demo/rest/v1/todos?id=eq.7&apikey=secret',
      '/v1/demo/rest/v1/rpc/add_todo',
      '/v1/demo/rest/v1/',
      '/v1/demo/rest/v1',
      '/v1/demo/auth/v1/admin/users/5b3c0c0e-8d1e-4c8e-9d55-111111111111',
      '/v1/demo/functions/v1/report',
      '/v1/demo/openapi.json',
      '/v1/demo',
      '/health',
      '/health/live',
      '/wp-admin/1234',
    ].map(requestRoute)).toEqual([
      { api: 'rest', ref: 'demo', route: '/v1/:ref/rest/v1/:relation' },
      { api: 'rest', ref: 'demo', route: '/v1/:ref/rest/v1/rpc/:function' },
      { api: 'rest', ref: 'demo', route: '/v1/:ref/rest/v1/' },
      { api: 'rest', ref: 'demo', route: '/v1/:ref/rest/v1/' },
      { api: 'auth', ref: 'demo', route: '/v1/:ref/auth/v1/*' },
      { api: 'functions', ref: 'demo', route: '/v1/:ref/functions/v1/*' },
      { api: 'docs', ref: 'demo', route: '/v1/:ref/*' },
      { api: 'docs', ref: 'demo', route: '/v1/:ref/*' },
      { api: 'host', ref: '', route: '/health' },
      { api: 'host', ref: '', route: '/health/live' },
      { api: 'host', ref: '', route: '*' },
    ]);
  });

  it("refines a template's * with the route the router matched", () => {
    expect(refinedRoute('/v1/:ref/auth/v1/*', '/admin/users/:user_id')).toBe('/v1/:ref/auth/v1/admin/users/:user_id');
    expect(refinedRoute('/v1/:ref/auth/v1/*', undefined)).toBe('/v1/:ref/auth/v1/*');
    expect(refinedRoute('/v1/:ref/rest/v1/:relation', '/x')).toBe('/v1/:ref/rest/v1/:relation');
  });
});
