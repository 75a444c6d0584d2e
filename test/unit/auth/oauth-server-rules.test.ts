import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkAuthorizeRequest, consentCovers, consentPageUrl, errorRedirect, parseScopes, successRedirect } from '../../../runtime/auth/oauth-server/authorize-request.js';
import { clientAuthenticationProblem, clientCredentialsOf } from '../../../runtime/auth/oauth-server/client-credentials.js';
import type { OAuthClientRow } from '../../../runtime/auth/oauth-server/clients.js';
import { idTokenClaims, wantsIdToken } from '../../../runtime/auth/oauth-server/id-token.js';
import { userInfoOf } from '../../../runtime/auth/oauth-server/userinfo.js';
import type { UserRow } from '../../../runtime/auth/storage/user-json.js';

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('an /oauth/authorize request (GoTrue validateRemainingAuthorizeParams)', () => {
  const base = { redirect_uri: 'https://c.example/cb', code_challenge: CHALLENGE, code_challenge_method: 'S256' };

  it('defaults response_type to code and scope to email, and lower-cases the challenge method', () => {
    expect(checkAuthorizeRequest(base)).toEqual({
      request: { redirectUri: 'https://c.example/cb', scope: 'email', state: '', resource: '', codeChallenge: CHALLENGE, codeChallengeMethod: 's256', nonce: '' },
    });
  });

  it.each([
    [{ response_type: 'token' }, 'only response_type=code is supported'],
    [{ scope: '   ' }, 'scope parameter cannot be empty'],
    [{ scope: 'openid admin' }, 'unsupported scope: admin'],
    [{ resource: 'relative/path' }, 'resource must be an absolute URI'],
    [{ resource: 'https://api.example/x#y' }, 'resource must not include a fragment component'],
    [{ resource: 'https://api.example/x?y=1' }, 'resource must not include a query component'],
    [{ code_challenge: '' }, 'PKCE flow requires both code_challenge and code_challenge_method'],
    [{ code_challenge_method: '' }, 'PKCE flow requires both code_challenge and code_challenge_method'],
    [{ code_challenge_method: 'S512' }, "code_challenge_method must be 'S256' or 'plain'"],
    [{ code_challenge: 'short' }, 'code_challenge must be between 43 and 128 characters'],
  ])('%j -> %s', (change, problem) => {
    expect(checkAuthorizeRequest({ ...base, ...change })).toEqual({ problem });
  });

  it('parses scopes as GoTrue (single spaces, blanks dropped) and sees whether a consent covers a request', () => {
    expect(parseScopes(' openid  email ')).toEqual(['openid', 'email']);
    expect(consentCovers('openid email', 'email')).toBe(true);
    expect(consentCovers('email', 'email profile')).toBe(false);
  });

  it('builds the redirects: code and state, or the error; an empty state is left out; the consent page under the site URL', () => {
    expect(successRedirect('https://c.example/cb?x=1', 'abc', 'st')).toBe('https://c.example/cb?x=1&code=abc&state=st');
    expect(errorRedirect('myapp://cb', 'access_denied', 'User denied the request', '')).toBe('myapp://cb?error=access_denied&error_description=User+denied+the+request');
    expect(consentPageUrl('https://app.example/', 'oauth/consent', 'A1b2')).toBe('https://app.example/oauth/consent?authorization_id=A1b2');
  });
});

const client = (type: 'public' | 'confidential', method: OAuthClientRow['token_endpoint_auth_method'], secret: string | null): OAuthClientRow => ({
  id: '1b2e3f40-0000-4000-8000-000000000001',
  client_secret_hash: secret === null ? null : createHash('sha256').update(secret).digest('hex'),
  registration_type: 'manual',
  client_type: type,
  token_endpoint_auth_method: method,
  redirect_uris: ['https://c.example/cb'],
  grant_types: ['authorization_code', 'refresh_token'],
  client_name: null,
  client_uri: null,
  logo_uri: null,
  created_at: new Date(0),
  updated_at: new Date(0),
});

describe('client authentication at the token endpoint (RFC 6749 §2.3, GoTrue ExtractClientCredentials)', () => {
  const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

  it('reads HTTP Basic first, else client_id and client_secret from the body', () => {
    expect(clientCredentialsOf(basic('id-1:s:e:c'), { client_id: 'ignored' })).toEqual({ credentials: { clientId: 'id-1', secret: 's:e:c', method: 'client_secret_basic' } });
    expect(clientCredentialsOf(undefined, { client_id: 'id-1', client_secret: 'x' })).toEqual({ credentials: { clientId: 'id-1', secret: 'x', method: 'client_secret_post' } });
    expect(clientCredentialsOf('Bearer abc', { client_id: 'id-1' })).toEqual({ credentials: { clientId: 'id-1', secret: '', method: 'none' } });
    expect(clientCredentialsOf(undefined, {})).toEqual({ problem: 'client_id is required' });
    expect(clientCredentialsOf('Basic !!!', {})).toEqual({ problem: 'invalid basic auth encoding' });
    expect(clientCredentialsOf(basic('no-colon'), {})).toEqual({ problem: 'invalid basic auth format' });
  });

  it('holds the client to its registered method and secret', () => {
    const confidential = client('confidential', 'client_secret_basic', 'right');
    const creds = (secret: string, method: 'client_secret_basic' | 'client_secret_post' | 'none') => ({ clientId: confidential.id, secret, method });
    expect(clientAuthenticationProblem(confidential, creds('right', 'client_secret_basic'))).toBeNull();
    expect(clientAuthenticationProblem(confidential, creds('wrong', 'client_secret_basic'))).toBe('invalid client credentials');
    expect(clientAuthenticationProblem(confidential, creds('', 'client_secret_basic'))).toBe('confidential clients must provide client_secret');
    expect(clientAuthenticationProblem(confidential, creds('right', 'client_secret_post'))).toBe(
      "invalid authentication method: client is registered for 'client_secret_basic' but 'client_secret_post' was used",
    );
    const publicClient = client('public', 'none', null);
    expect(clientAuthenticationProblem(publicClient, creds('', 'none'))).toBeNull();
  });
});

describe('/oauth/userinfo claims by granted scope', () => {
  const user = {
    id: 'u-1',
    email: 'ada@example.com',
    email_confirmed_at: new Date(0),
    updated_at: new Date(5000),
    raw_user_meta_data: { avatar_url: 'https://img.example/a.png', username: 'ada' },
    phone: '15551234567',
    phone_confirmed_at: null,
  } as unknown as UserRow;

  it('gives sub alone without an OAuth session, e-mail claims for email, profile claims for profile, the number for phone', () => {
    expect(userInfoOf(user, null)).toEqual({ sub: 'u-1' });
    expect(userInfoOf(user, 'phone')).toEqual({ sub: 'u-1', phone: '15551234567' });
    expect(userInfoOf({ ...user, phone_confirmed_at: new Date(0) }, 'phone')).toEqual({ sub: 'u-1', phone: '15551234567', phone_verified: true });
    expect(userInfoOf(user, 'openid email')).toEqual({ sub: 'u-1', email: 'ada@example.com', email_verified: true });
    expect(userInfoOf(user, 'profile')).toEqual({
      sub: 'u-1',
      name: 'ada@example.com',
      picture: 'https://img.example/a.png',
      preferred_username: 'ada',
      updated_at: 5,
      user_metadata: { avatar_url: 'https://img.example/a.png', username: 'ada' },
    });
  });
});

describe('the ID token of the openid scope (GoTrue GenerateIDToken)', () => {
  const user = {
    id: 'u-2',
    email: 'grace@example.com',
    email_confirmed_at: null,
    last_sign_in_at: new Date(1_000_000),
    updated_at: new Date(7000),
    raw_user_meta_data: { name: 'Grace' },
    phone: '15550001111',
    phone_confirmed_at: new Date(0),
  } as unknown as UserRow;
  const base = { issuer: 'https://h.example/v1/r/auth/v1', user, clientId: 'c-1', now: new Date(2_000_000) };

  it('is owed only for the openid scope', () => {
    expect(wantsIdToken('email openid')).toBe(true);
    expect(wantsIdToken('email')).toBe(false);
  });

  it('names the client as audience, carries the nonce, auth_time and the claims of the granted scopes', () => {
    expect(idTokenClaims({ ...base, scope: 'openid', nonce: null })).toEqual({
      iss: 'https://h.example/v1/r/auth/v1', sub: 'u-2', aud: ['c-1'], exp: 5600, iat: 2000, auth_time: 1000,
      email_verified: false, phone_number_verified: false, client_id: 'c-1',
    });
    expect(idTokenClaims({ ...base, scope: 'openid email phone profile', nonce: 'n' })).toEqual({
      iss: 'https://h.example/v1/r/auth/v1', sub: 'u-2', aud: ['c-1'], exp: 5600, iat: 2000, nonce: 'n', auth_time: 1000,
      email: 'grace@example.com', email_verified: false, phone_number: '15550001111', phone_number_verified: true,
      name: 'Grace', updated_at: 7, client_id: 'c-1',
    });
  });
});
