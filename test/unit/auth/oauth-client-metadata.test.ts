import { describe, expect, it } from 'vitest';
import { AuthError } from '../../../runtime/auth/http/errors.js';
import { acceptClientChange, acceptRegistration, redirectUriProblem } from '../../../runtime/auth/oauth-server/client-metadata.js';

function refusal(work: () => unknown): { status: number; code: string; message: string } {
  try {
    work();
  } catch (error) {
    if (error instanceof AuthError) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('redirect URIs of an OAuth client (GoTrue validateRedirectURI)', () => {
  it.each([
    ['https://app.example.com/callback', null],
    ['http://localhost:3000/cb', null],
    ['http://127.0.0.1/cb', null],
    ['http://[::1]:8080/cb', null],
    ['myapp://callback', null],
    ['', 'redirect URI cannot be empty'],
    ['not a url', 'invalid URL format'],
    ['mailto:someone@example.com', 'must have scheme and host'],
    ['http://app.example.com/cb', 'HTTP scheme only allowed for localhost'],
    ['javascript://example.com/%0aalert(1)', "scheme 'javascript' is not allowed for security reasons"],
    ['https://app.example.com/cb#frag', 'fragment not allowed in redirect URI'],
    ['https://app.example.com/cb#', 'fragment not allowed in redirect URI'],
  ])('%s -> %s', (uri, problem) => {
    expect(redirectUriProblem(uri)).toBe(problem);
  });
});

describe('a client registration', () => {
  it('defaults as GoTrue: confidential, client_secret_basic, both grant types, empty texts absent', () => {
    expect(acceptRegistration({ redirect_uris: ['https://a.example/cb'] }, 'manual')).toEqual({
      registrationType: 'manual',
      clientType: 'confidential',
      tokenEndpointAuthMethod: 'client_secret_basic',
      redirectUris: ['https://a.example/cb'],
      grantTypes: ['authorization_code', 'refresh_token'],
      clientName: null,
      clientUri: null,
      logoUri: null,
    });
  });

  it('infers the client type from the auth method, and the method from the type', () => {
    const base = { redirect_uris: ['https://a.example/cb'] };
    expect(acceptRegistration({ ...base, token_endpoint_auth_method: 'none' }, 'dynamic')).toMatchObject({ clientType: 'public', tokenEndpointAuthMethod: 'none' });
    expect(acceptRegistration({ ...base, client_type: 'public' }, 'dynamic')).toMatchObject({ clientType: 'public', tokenEndpointAuthMethod: 'none' });
    expect(acceptRegistration({ ...base, token_endpoint_auth_method: 'client_secret_post' }, 'manual')).toMatchObject({
      clientType: 'confidential',
      tokenEndpointAuthMethod: 'client_secret_post',
    });
  });

  it("refuses with GoTrue's 400 validation_failed, whose message carries the inner error's status", () => {
    expect(refusal(() => acceptRegistration({ redirect_uris: [] }, 'manual'))).toEqual({
      status: 400,
      code: 'validation_failed',
      message: '400: redirect_uris is required',
    });
    expect(refusal(() => acceptRegistration({ redirect_uris: ['http://evil.example/cb'] }, 'manual')).message).toBe(
      "400: invalid redirect_uri 'http://evil.example/cb': HTTP scheme only allowed for localhost",
    );
    expect(refusal(() => acceptRegistration({ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) }, 'manual')).message).toBe(
      '400: redirect_uris cannot exceed 10 items',
    );
    expect(refusal(() => acceptRegistration({ redirect_uris: ['https://a.example/cb'], grant_types: ['implicit'] }, 'manual')).message).toBe(
      "400: grant_types must only contain 'authorization_code' and/or 'refresh_token'",
    );
    expect(refusal(() => acceptRegistration({ redirect_uris: ['https://a.example/cb'], logo_uri: 'not a url' }, 'manual')).message).toBe(
      '400: logo_uri must be a valid URL',
    );
    expect(
      refusal(() => acceptRegistration({ redirect_uris: ['https://a.example/cb'], client_type: 'public', token_endpoint_auth_method: 'client_secret_basic' }, 'manual'))
        .message,
    ).toBe("400: client_type 'public' is inconsistent with token_endpoint_auth_method 'client_secret_basic' (expected client_type 'confidential')");
    expect(refusal(() => acceptRegistration({ redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'private_key_jwt' }, 'manual')).message).toBe(
      '400: token_endpoint_auth_method must be one of: [none client_secret_basic client_secret_post]',
    );
  });

  it('answers a body of the wrong shape as the JSON decoder does', () => {
    expect(refusal(() => acceptRegistration({ redirect_uris: 'https://a.example/cb' }, 'manual'))).toEqual({
      status: 400,
      code: 'bad_json',
      message: 'Invalid JSON body',
    });
  });
});

describe('a client update', () => {
  it('changes only the fields present; an empty string clears a text', () => {
    expect(acceptClientChange({ logo_uri: 'https://a.example/logo.png' }, 'confidential')).toEqual({ logoUri: 'https://a.example/logo.png' });
    expect(acceptClientChange({ client_name: '' }, 'public')).toEqual({ clientName: '' });
  });

  it('refuses an empty update, an empty URI list and an auth method of the other client type', () => {
    expect(refusal(() => acceptClientChange({}, 'confidential'))).toEqual({ status: 400, code: 'validation_failed', message: 'No fields provided for update' });
    expect(refusal(() => acceptClientChange({ redirect_uris: [] }, 'confidential')).message).toBe('redirect_uris cannot be empty');
    expect(refusal(() => acceptClientChange({ token_endpoint_auth_method: 'none' }, 'confidential')).message).toBe(
      "token_endpoint_auth_method 'none' is not valid for client_type 'confidential'; valid methods: [client_secret_basic client_secret_post]",
    );
  });
});
