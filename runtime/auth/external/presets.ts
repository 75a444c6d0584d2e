import type { JWTPayload } from 'jose';

/**
 * The providers Gantry knows by name, as GoTrue's provider/*.go configure them: where the browser
 * is sent, where the code is exchanged, and how what the provider says about the user becomes
 * the identity's data (GoTrue's Claims: `sub`, `email`, `email_verified`, `name`, `avatar_url`, …).
 * OpenID Connect providers (Google, Apple, Azure, a `custom:` one) are read from the verified ID
 * token; GitHub, GitLab and Discord from their user APIs.
 */

export type Claims = Record<string, unknown>;

export interface OidcPreset {
  readonly kind: 'oidc';
  /** The issuer; `url` is the configured `auth.external.<provider>.url`. */
  readonly issuer: (url: string) => string;
  readonly scopes: readonly string[];
  /** Extra authorization parameters (Apple posts its answer back). */
  readonly authorizeParams?: Readonly<Record<string, string>>;
}

export interface UserApiCall {
  readonly url: string;
  /** Whether the answer is a list (e-mail addresses). */
  readonly list: boolean;
}

export interface OAuth2Preset {
  readonly kind: 'oauth2';
  readonly authorizeUrl: (url: string) => string;
  readonly tokenUrl: (url: string) => string;
  readonly userCalls: (url: string) => readonly UserApiCall[];
  readonly scopes: readonly string[];
  /** The user APIs' answers, in userCalls' order, to the identity's claims. */
  readonly claims: (answers: readonly unknown[], url: string) => Claims;
}

export type ProviderPreset = OidcPreset | OAuth2Preset;

const obj = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const idText = (value: unknown): string | undefined => (typeof value === 'number' ? String(value) : text(value));

/** GoTrue's Claims as structs.Map writes them: empty fields left out, the two *_verified always there. */
function claimsOf(fields: Readonly<Record<string, unknown>>): Claims {
  const claims: Claims = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined && value !== '' && value !== null) claims[key] = value;
  claims.email_verified = fields.email_verified === true;
  claims.phone_verified = false;
  return claims;
}

/** GoTrue's parseGenericIDToken: the standard claims of an ID token. */
export function idTokenClaims(payload: JWTPayload): Claims {
  const name = text(payload.name);
  const picture = text(payload.picture);
  const emailVerified = payload.email_verified === true || payload.email_verified === 'true';
  return claimsOf({
    iss: payload.iss,
    sub: payload.sub,
    name,
    picture,
    preferred_username: text(payload.preferred_username),
    nickname: text(payload.nickname),
    email: text(payload.email),
    email_verified: emailVerified,
    avatar_url: picture,
    full_name: name,
    provider_id: payload.sub,
  });
}

/**
 * The address GoTrue's external.go keeps of a provider's list: the primary one, else the last
 * listed — verified or not; account-linking then decides what an unverified one may do.
 */
function chosenEmail(emails: readonly Record<string, unknown>[]): Record<string, unknown> | undefined {
  return emails.find((e) => e.primary === true) ?? emails.at(-1);
}

/** GitHub: /user, then /user/emails, as GoTrue's github.go reads them. */
export function githubClaims(answers: readonly unknown[], url: string): Claims {
  const user = obj(answers[0]);
  const chosen = chosenEmail(Array.isArray(answers[1]) ? answers[1].map(obj).filter((e) => text(e.email) !== undefined) : []);
  const sub = idText(user.id);
  return claimsOf({
    iss: url === '' ? 'https://api.github.com' : `${url}/api/v3`,
    sub,
    name: text(user.name),
    preferred_username: text(user.login),
    email: text(chosen?.email),
    email_verified: chosen?.verified === true,
    avatar_url: text(user.avatar_url),
    full_name: text(user.name),
    user_name: text(user.login),
    provider_id: sub,
  });
}

/** GitLab: /api/v4/user, as GoTrue's gitlab.go reads it; its address counts as verified once GitLab confirmed it (confirmed_at). */
export function gitlabClaims(answers: readonly unknown[], url: string): Claims {
  const user = obj(answers[0]);
  const sub = idText(user.id);
  return claimsOf({
    iss: url === '' ? 'https://gitlab.com' : url,
    sub,
    name: text(user.name),
    email: text(user.email),
    email_verified: text(user.confirmed_at) !== undefined,
    picture: text(user.avatar_url),
    avatar_url: text(user.avatar_url),
    full_name: text(user.name),
    provider_id: sub,
  });
}

const orDefault = (url: string, fallback: string): string => (url === '' ? fallback : url);

/** Discord's API root: `<url>/api`, as GoTrue's discord.go builds it from EXTERNAL_DISCORD_URL. */
const discordApi = (url: string): string => `${orDefault(url, 'https://discord.com')}/api`;

/**
 * Discord: /users/@me, as GoTrue's discord.go reads it: `name` is `username#discriminator` (`#0`
 * for accounts on Discord's new unique names), `full_name` the username, the global name a
 * custom claim; the avatar a CDN path from the id and hash (an animated one is a .gif), or
 * Discord's default avatar for the discriminator.
 */
export function discordClaims(answers: readonly unknown[], url: string): Claims {
  const user = obj(answers[0]);
  const sub = idText(user.id);
  const avatar = text(user.avatar);
  const discriminator = text(user.discriminator) ?? '';
  const avatarUrl =
    avatar !== undefined ? `https://cdn.discordapp.com/avatars/${sub ?? ''}/${avatar}.${avatar.startsWith('a_') ? 'gif' : 'png'}`
    : /^\d+$/.test(discriminator) ? `https://cdn.discordapp.com/embed/avatars/${Number(discriminator) % 5}.png`
    : undefined;
  const userName = text(user.username) ?? '';
  return claimsOf({
    iss: discordApi(url),
    sub,
    name: `${userName}#${discriminator}`,
    email: text(user.email),
    email_verified: user.verified === true,
    picture: avatarUrl,
    custom_claims: { global_name: typeof user.global_name === 'string' ? user.global_name : '' },
    avatar_url: avatarUrl,
    full_name: text(user.username),
    provider_id: sub,
  });
}

export const PRESETS: Readonly<Record<string, ProviderPreset>> = {
  google: { kind: 'oidc', issuer: () => 'https://accounts.google.com', scopes: ['openid', 'email', 'profile'] },
  apple: { kind: 'oidc', issuer: () => 'https://appleid.apple.com', scopes: ['openid', 'email', 'name'], authorizeParams: { response_mode: 'form_post' } },
  // A tenant's issuer (https://login.microsoftonline.com/<tenant>/v2.0): the `common` one names no issuer its tokens carry.
  azure: { kind: 'oidc', issuer: (url) => orDefault(url, 'https://login.microsoftonline.com/common/v2.0'), scopes: ['openid', 'email', 'profile'] },
  github: {
    kind: 'oauth2',
    authorizeUrl: (url) => `${orDefault(url, 'https://github.com')}/login/oauth/authorize`,
    tokenUrl: (url) => `${orDefault(url, 'https://github.com')}/login/oauth/access_token`,
    userCalls: (url) => {
      const api = url === '' ? 'https://api.github.com' : `${url}/api/v3`;
      return [{ url: `${api}/user`, list: false }, { url: `${api}/user/emails`, list: true }];
    },
    scopes: ['user:email'],
    claims: githubClaims,
  },
  gitlab: {
    kind: 'oauth2',
    authorizeUrl: (url) => `${orDefault(url, 'https://gitlab.com')}/oauth/authorize`,
    tokenUrl: (url) => `${orDefault(url, 'https://gitlab.com')}/oauth/token`,
    userCalls: (url) => [{ url: `${orDefault(url, 'https://gitlab.com')}/api/v4/user`, list: false }],
    scopes: ['read_user'],
    claims: gitlabClaims,
  },
  discord: {
    kind: 'oauth2',
    authorizeUrl: (url) => `${discordApi(url)}/oauth2/authorize`,
    tokenUrl: (url) => `${discordApi(url)}/oauth2/token`,
    userCalls: (url) => [{ url: `${discordApi(url)}/users/@me`, list: false }],
    scopes: ['email', 'identify'],
    claims: discordClaims,
  },
};

/** The preset of a provider name: a named one, or generic OpenID Connect for `custom:<id>` (issuer = its url). */
export function presetOf(provider: string): ProviderPreset | null {
  if (provider.startsWith('custom:')) return { kind: 'oidc', issuer: (url) => url, scopes: ['openid', 'email', 'profile'] };
  return PRESETS[provider] ?? null;
}
