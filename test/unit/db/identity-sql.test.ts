import { describe, expect, it } from 'vitest';
import { identitySql, identityValues, type RequestIdentity } from '../../../runtime/db/rls-transaction.js';

const identity: RequestIdentity = {
  role: 'anon', claims: '{"role":"anon"}', method: 'GET', path: '/t', headers: '{}', cookies: '{}', searchPath: '"public"',
  timezone: 'UTC', preRequest: '"public"."check"', appSettings: [['app.settings.a', '1'], ['app.settings.b', "it's"]],
};

describe('the identity statement', () => {
  it('sets the app settings after the others, names and values as parameters, before the pre-request function', () => {
    expect(identitySql((n) => `$${n}`, { timezone: true, preRequest: '"public"."check"', appSettings: 2 })).toBe(
      "SELECT FROM (SELECT set_config('search_path', $1, true), set_config('role', $2, true), set_config('request.jwt.claims', $3, true), "
      + "set_config('request.method', $4, true), set_config('request.path', $5, true), set_config('request.headers', $6, true), "
      + "set_config('request.cookies', $7, true), set_config('timezone', $8, true), set_config($9, $10, true), set_config($11, $12, true), "
      + '"public"."check"()) AS "gantry_identity"',
    );
    expect(identityValues(identity)).toEqual(['"public"', 'anon', '{"role":"anon"}', 'GET', '/t', '{}', '{}', 'UTC', 'app.settings.a', '1', 'app.settings.b', "it's"]);
  });

  it('without a timezone the app settings follow request.cookies', () => {
    expect(identitySql((n) => `:i${n}`, { timezone: false, preRequest: null, appSettings: 1 })).toMatch(/set_config\('request\.cookies', :i7, true\), set_config\(:i8, :i9, true\)\) AS "gantry_identity"$/);
    expect(identityValues({ ...identity, timezone: null, appSettings: [['app.settings.a', '1']] }).slice(7)).toEqual(['app.settings.a', '1']);
  });
});
