import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { discordClaims, githubClaims, gitlabClaims, idTokenClaims, PRESETS, presetOf } from '../../../runtime/auth/external/presets.js';
import {
  displayExternalProviders,
  openProviderSecret,
  parseExternalSetting,
  resolveExternalProviders,
  sealProviderSecret,
} from '../../../runtime/settings/provider-settings.js';
import { hashedNonce, idTokenClaimsError } from '../../../runtime/auth/flows/id-token-grant.js';

/** The presets' user-info mapping, on answers shaped as the providers document them (test/fixtures/oauth-providers). */

const fixture = (name: string): unknown =>
  JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../fixtures/oauth-providers', name), 'utf8'));

describe('user info to identity data', () => {
  it('GitHub: the primary address from /user/emails, login as user_name, no picture (as GoTrue)', () => {
    expect(githubClaims([fixture('github-user.json'), fixture('github-emails.json')], '')).toEqual({
      iss: 'https://api.github.com',
      sub: '583231',
      name: 'The Octocat',
      preferred_username: 'octocat',
      email: 'octocat@github.com',
      email_verified: true,
      phone_verified: false,
      avatar_url: 'https://avatars.githubusercontent.com/u/583231?v=4',
      full_name: 'The Octocat',
      user_name: 'octocat',
      provider_id: '583231',
    });
  });

  it('GitHub Enterprise: the API under the configured URL', () => {
    expect(PRESETS.github?.kind === 'oauth2' && PRESETS.github.userCalls('https://ghe.example.com').map((call) => call.url)).toEqual([
      'https://ghe.example.com/api/v3/user',
      'https://ghe.example.com/api/v3/user/emails',
    ]);
  });

  it('GitHub: without a primary address, the last one listed, verified or not (GoTrue external.go)', () => {
    const emails = [
      { email: 'a@example.com', primary: false, verified: true },
      { email: 'b@example.com', primary: false, verified: false },
    ];
    expect(githubClaims([fixture('github-user.json'), emails], '')).toMatchObject({ email: 'b@example.com', email_verified: false });
  });

  it('GitLab: confirmed_at makes the address verified', () => {
    const user = fixture('gitlab-user.json') as Record<string, unknown>;
    expect(gitlabClaims([user], '')).toEqual({
      iss: 'https://gitlab.com',
      sub: '1',
      name: 'John Smith',
      email: 'john@example.com',
      email_verified: true,
      phone_verified: false,
      picture: 'http://localhost:3000/uploads/user/avatar/1/index.jpg',
      avatar_url: 'http://localhost:3000/uploads/user/avatar/1/index.jpg',
      full_name: 'John Smith',
      provider_id: '1',
    });
    expect(gitlabClaims([{ ...user, confirmed_at: null }], 'https://git.example.com')).toMatchObject({ iss: 'https://git.example.com', email_verified: false });
  });

  it('Discord: name#discriminator as name, the username as full name, the global name a custom claim (as GoTrue)', () => {
    expect(discordClaims([fixture('discord-user.json')], '')).toEqual({
      iss: 'https://discord.com/api',
      sub: '80351110224678912',
      name: 'nelly#0',
      email: 'nelly@discord.com',
      email_verified: true,
      phone_verified: false,
      picture: 'https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png',
      custom_claims: { global_name: 'Nelly' },
      avatar_url: 'https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png',
      full_name: 'nelly',
      provider_id: '80351110224678912',
    });
  });

  it("Discord: an animated avatar is a .gif, no avatar is Discord's default for the discriminator, and the API follows the configured URL", () => {
    const user = fixture('discord-user.json') as Record<string, unknown>;
    expect(discordClaims([{ ...user, avatar: 'a_1269e74af4df7417b13759eae50c83dc' }], '')).toMatchObject({
      picture: 'https://cdn.discordapp.com/avatars/80351110224678912/a_1269e74af4df7417b13759eae50c83dc.gif',
    });
    expect(discordClaims([{ ...user, avatar: null, discriminator: '1337' }], 'https://discord.test')).toMatchObject({
      iss: 'https://discord.test/api',
      name: 'nelly#1337',
      picture: 'https://cdn.discordapp.com/embed/avatars/2.png',
    });
    const discord = PRESETS.discord;
    expect(discord?.kind === 'oauth2' && [discord.authorizeUrl('https://discord.test'), discord.tokenUrl(''), ...discord.userCalls('https://discord.test').map((call) => call.url)]).toEqual([
      'https://discord.test/api/oauth2/authorize',
      'https://discord.com/api/oauth2/token',
      'https://discord.test/api/users/@me',
    ]);
  });

  it('Google, Apple (email_verified as a string) and Azure: the ID token claims', () => {
    expect(idTokenClaims(fixture('google-id-token-claims.json') as never)).toEqual({
      iss: 'https://accounts.google.com',
      sub: '10769150350006150715113082367',
      name: 'Jane Smith',
      picture: 'https://lh3.googleusercontent.com/a/photo.jpg',
      email: 'jsmith@example.com',
      email_verified: true,
      phone_verified: false,
      avatar_url: 'https://lh3.googleusercontent.com/a/photo.jpg',
      full_name: 'Jane Smith',
      provider_id: '10769150350006150715113082367',
    });
    expect(idTokenClaims(fixture('apple-id-token-claims.json') as never)).toMatchObject({ email: 'a1b2c3@privaterelay.appleid.com', email_verified: true });
    expect(idTokenClaims(fixture('azure-id-token-claims.json') as never)).toMatchObject({
      email: 'AbeLi@microsoft.com',
      email_verified: false,
      preferred_username: 'AbeLi@microsoft.com',
      sub: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ',
    });
  });

  it('a custom: provider is OpenID Connect at its configured issuer; unknown names have no preset', () => {
    const custom = presetOf('custom:corp');
    expect(custom?.kind === 'oidc' && custom.issuer('https://id.example.com')).toBe('https://id.example.com');
    expect(presetOf('myspace')).toBeNull();
  });
});

describe('ID token checks after the signature', () => {
  const claims = { sub: 'u1', aud: ['web', 'ios'], nonce: hashedNonce('n-1') };
  it('accepts any configured client id as audience and the hashed nonce', () => {
    expect(hashedNonce('n-1')).toBe('51aeea8ffa05d2620d35c87463465885e77df13171d5708746df1a9f36d47f35');
    expect(idTokenClaimsError(claims, ['ios'], 'n-1')).toBeNull();
  });
  it('refuses as GoTrue words it', () => {
    expect(idTokenClaimsError(claims, ['android'], 'n-1')?.message).toBe('Unacceptable audience in id_token: [web ios]');
    expect(idTokenClaimsError(claims, ['web'], 'n-2')?.message).toBe('Nonces mismatch');
    expect(idTokenClaimsError(claims, ['web'], '')?.message).toBe('Passed nonce and nonce in id_token should either both exist or not.');
    expect(idTokenClaimsError({ aud: 'web' }, ['web'], '')?.message).toBe('Missing sub claim in id_token');
  });
});

describe('auth.external settings', () => {
  it('parses each field and refuses unknown providers, fields and values', () => {
    expect(parseExternalSetting('auth.external.github.enabled', 'true')).toBe(true);
    expect(parseExternalSetting('auth.external.custom:corp.url', 'https://id.example.com/')).toBe('https://id.example.com');
    expect(() => parseExternalSetting('auth.external.myspace.enabled', 'true')).toThrow(/unknown setting "auth.external.myspace.enabled"/);
    expect(() => parseExternalSetting('auth.external.github.colour', 'red')).toThrow(/unknown setting/);
    expect(() => parseExternalSetting('auth.external.github.enabled', 'yes')).toThrow('auth.external.github.enabled: expected true or false, got "yes"');
    expect(() => parseExternalSetting('auth.external.gitlab.url', 'ftp://x')).toThrow(/expected an http\(s\) URL/);
  });

  it('resolves the stored flat keys and shows the secret only as set', () => {
    const sealed = sealProviderSecret('jwt-secret', 'github', 's3cret');
    const providers = resolveExternalProviders({
      'auth.external.github.enabled': true,
      'auth.external.github.client_id': 'a, b',
      'auth.external.github.secret': sealed,
      'auth.external.github.scopes': 'read:org repo',
      'auth.external.bogus.enabled': true,
    });
    expect(providers).toEqual({
      github: { enabled: true, client_ids: ['a', 'b'], secret_sealed: sealed, redirect_uri: '', scopes: ['read:org', 'repo'], url: '' },
    });
    expect(openProviderSecret('jwt-secret', 'github', sealed)).toBe('s3cret');
    expect(() => openProviderSecret('jwt-secret', 'gitlab', sealed)).toThrow();
    expect(displayExternalProviders(providers)).toEqual({
      'auth.external.github.enabled': true,
      'auth.external.github.client_id': 'a,b',
      'auth.external.github.secret': '(sealed)',
      'auth.external.github.redirect_uri': '',
      'auth.external.github.scopes': 'read:org repo',
      'auth.external.github.url': '',
    });
  });
});
