import { describe, expect, it } from 'vitest';
import type { ProjectClaims } from '../../../runtime/tokens/jwt.js';
import { requestIdentity, type RequestScope } from '../../../runtime/rest/credentials.js';

/** The values the identity statement sets, as the data API derives them from a request and the project's settings. */

const claims = { role: 'authenticated', sub: 'u1' } as unknown as ProjectClaims;
const scope: RequestScope = { schema: 'api', extraSearchPath: ['public', 'extensions'], timezone: null, preRequest: '', appSettings: {} };

describe('requestIdentity', () => {
  it('puts the headers as they are when each is one string, and joins a repeated one (set-cookie) with commas', () => {
    const plain = requestIdentity({ method: 'GET', headers: { host: 'h', accept: '*/*', 'x-a': 'it\'s "q"' } }, claims, '/t', scope);
    expect(plain.headers).toBe('{"host":"h","accept":"*/*","x-a":"it\'s \\"q\\""}');
    const repeated = requestIdentity({ method: 'GET', headers: { host: 'h', 'set-cookie': ['a=1', 'b=2'], skipped: undefined } }, claims, '/t', scope);
    expect(repeated.headers).toBe('{"host":"h","set-cookie":"a=1, b=2"}');
  });

  it('takes the search path, pre-request function and app settings from the settings it is given each time', () => {
    const first = requestIdentity({ headers: {} }, claims, '/t', { ...scope, preRequest: 'api.check', appSettings: { b: '2', a: '1' } });
    expect([first.searchPath, first.preRequest, first.appSettings]).toEqual([
      '"api", "public", "extensions"', '"api"."check"', [['app.settings.a', '1'], ['app.settings.b', '2']],
    ]);
    const other = requestIdentity({ headers: {} }, claims, '/t', { ...scope, schema: 'public', extraSearchPath: [], preRequest: 'gate', appSettings: {} });
    expect([other.searchPath, other.preRequest, other.appSettings]).toEqual(['"public"', '"gate"', []]);
    expect(requestIdentity({ headers: {} }, claims, '/t', { ...scope, extraSearchPath: ['ext'] }).searchPath).toBe('"api", "ext"');
  });
});
