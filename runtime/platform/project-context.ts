import type pg from 'pg';
import type { GantryConfig } from '../config.js';
import type { RlsExecutor } from '../db/rls-transaction.js';
import type { AccessTokenAlg, ProjectKeyring } from '../tokens/keyring.js';
import type { ExternalProviders } from '../settings/provider-settings.js';
import type { AuthHooks } from '../settings/hook-settings.js';
import type { SmsSettings } from '../settings/sms-settings.js';

/** Per-project settings kept in the platform registry (`project config --set`). */
export interface ProjectSettings {
  /** Exposed schemas in order, the first the default profile (PostgREST's `db-schemas`); the generated code serves exactly these. */
  readonly 'api.schemas': readonly string[];
  /** Aggregate functions in `select` (`amount.sum()`, `count()`), PostgREST's `db-aggregates-enabled`; off: 400 PGRST123. */
  readonly 'api.aggregates': boolean;
  /** `Accept: application/vnd.pgrst.plan` answers with the EXPLAIN output, PostgREST's `db-plan-enabled`; off: 406 PGRST107. */
  readonly 'api.plan': boolean;
  /** Schemas after the request's own on its `search_path` (PostgREST's `db-extra-search-path`; Supabase sets public, extensions). */
  readonly 'api.extra_search_path': readonly string[];
  /** At most this many rows in a read or a function's result (PostgREST's `db-max-rows`; Supabase's default 1000); null: no cap. */
  readonly 'api.max_rows': number | null;
  /** A function called at the start of every data API request's transaction, after the settings (PostgREST's `db-pre-request`): `schema.name`, or '' for none. */
  readonly 'api.pre_request': string;
  /**
   * PostgREST's `app.settings.*` config: set as transaction-local GUCs in every data API request, read in SQL with
   * `current_setting('app.settings.NAME')`. Keyed by NAME; set with `project config --set app.settings.NAME=VALUE`.
   */
  readonly 'app.settings': Readonly<Record<string, string>>;
  readonly 'auth.autoconfirm': boolean;
  /** What access tokens are signed with: HS256 = the project's jwt_secret (service document §1.1), ES256/RS256 = its current signing key. */
  readonly 'auth.signing_alg': AccessTokenAlg;
  /** GoTrue's DISABLE_SIGNUP: /signup answers 422 signup_disabled; admins still create users. */
  readonly 'auth.disable_signup': boolean;
  /** GoTrue's EXTERNAL_ANONYMOUS_USERS_ENABLED (Supabase's enable_anonymous_sign_ins): /signup with no e-mail creates an anonymous user. */
  readonly 'auth.anonymous_users': boolean;
  /** GoTrue's SITE_URL: where mail links land when redirect_to is absent or not allowed; '' = Gantry's own pages on PUBLIC_URL. */
  readonly 'auth.site_url': string;
  /** GoTrue's URI_ALLOW_LIST: further redirect targets, exact URLs or globs (`*`, `**`, separators '.' and '/'). */
  readonly 'auth.redirect_allow_list': readonly string[];
  /** GoTrue's MAILER_OTP_EXP: seconds a magic link or e-mail OTP code (and a reauthentication nonce) stays valid. */
  readonly 'auth.otp_expiry': number;
  /** GoTrue's MAILER_SECURE_EMAIL_CHANGE_ENABLED (default on): an e-mail change is confirmed by the current address and the new one. */
  readonly 'auth.secure_email_change': boolean;
  /** GoTrue's SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: a session older than 24 h changes its password only with a nonce from GET /reauthenticate. */
  readonly 'auth.update_password_require_reauthentication': boolean;
  /** GoTrue's refresh-token reuse grace window, in seconds (0 = none). */
  readonly 'auth.refresh_reuse_interval': number;
  /** Requests per client IP and 5 minutes, under GoTrue's names: /token; /verify and /reset; each of sign-up, recover, resend, /otp, /magiclink and PUT /user. */
  readonly 'auth.rate_limit.token_refresh': number;
  readonly 'auth.rate_limit.verify': number;
  readonly 'auth.rate_limit.otp': number;
  /** GoTrue's RATE_LIMIT_ANONYMOUS_USERS: anonymous sign-ins per client IP and hour. */
  readonly 'auth.rate_limit.anonymous_users': number;
  /** GoTrue's RATE_LIMIT_PASSKEY: POST /passkeys/authentication/options per client IP and 5 minutes. */
  readonly 'auth.rate_limit.passkey': number;
  /** GoTrue's RATE_LIMIT_SMS_SENT: SMS the project sends per hour, all phones together. */
  readonly 'auth.rate_limit.sms_sent': number;
  /** GoTrue's PASSKEY_ENABLED: sign-in with passkeys under /passkeys; off, those answer 404 passkey_disabled. */
  readonly 'auth.passkey.enabled': boolean;
  /** GoTrue's MFA_WEB_AUTHN_ENROLL_ENABLED and _VERIFY_ENABLED: WebAuthn MFA factors; off, 422 mfa_webauthn_enroll_not_enabled / _verify_not_enabled. */
  readonly 'auth.mfa.webauthn.enabled': boolean;
  /** GoTrue's MFA_PHONE_ENROLL_ENABLED and _VERIFY_ENABLED: phone MFA factors (codes by SMS); off, 422 mfa_phone_enroll_not_enabled / _verify_not_enabled. */
  readonly 'auth.mfa.phone.enabled': boolean;
  /** GoTrue's WEBAUTHN_RP_ID: the domain passkeys and WebAuthn factors are scoped to ('' = the site URL's host). */
  readonly 'auth.webauthn.rp_id': string;
  /** GoTrue's WEBAUTHN_RP_ORIGINS: origins allowed to run WebAuthn ceremonies ([] = the site URL's origin). */
  readonly 'auth.webauthn.rp_origins': readonly string[];
  /** OAuth/OIDC providers by name (`auth.external.<provider>.<field>`, GoTrue's EXTERNAL_<PROVIDER>_*). */
  readonly 'auth.external': ExternalProviders;
  /** GoTrue's SECURITY_MANUAL_LINKING_ENABLED: users link (GET /user/identities/authorize) and unlink identities. */
  readonly 'auth.manual_linking': boolean;
  /** GoTrue's OAUTH_SERVER_ENABLED: the project is an OAuth 2.1 authorization server for third-party apps (/oauth/*, /admin/oauth/clients). */
  readonly 'auth.oauth_server.enabled': boolean;
  /** GoTrue's OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION: anyone may register a client at POST /oauth/clients/register. */
  readonly 'auth.oauth_server.allow_dynamic_registration': boolean;
  /** GoTrue's OAUTH_SERVER_AUTHORIZATION_PATH: the consent page under the site URL that /oauth/authorize sends the browser to. */
  readonly 'auth.oauth_server.authorization_path': string;
  /** Supabase Auth's hooks (`auth.hook.<name>.{enabled,uri,secrets}`, GoTrue's HOOK_<NAME>_*). */
  readonly 'auth.hook': AuthHooks;
  /** Phone sign-in's SMS sender, template, codes and test OTPs (`auth.sms.<field>`, GoTrue's SMS_*). */
  readonly 'auth.sms': SmsSettings;
}

/**
 * Everything a project's server needs at request time. The host builds one per
 * project and hands it to the project's (generated) server and to the auth router.
 */
export interface ProjectContext {
  readonly ref: string;
  readonly jwtSecret: string;
  /** The secret and signing keys that sign and verify its tokens, parsed once per load. */
  readonly keyring: ProjectKeyring;
  readonly settings: ProjectSettings;
  /** Runs data API transactions as `authenticator`, switching role per request. */
  readonly executor: RlsExecutor;
  /** Connects as the cluster superuser; only runtime/auth uses it, for the `auth` schema. */
  readonly adminPool: pg.Pool;
  readonly config: GantryConfig;
}
