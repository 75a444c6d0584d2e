import { StatusError } from '../../coded-error.js';

/**
 * The one error shape of the auth API, as current GoTrue writes it: legacy
 * `{code: <status>, error_code, msg}`, or `{code: <error_code>, message}` when the
 * request asked for API version 2024-01-01 or later (auth-js always does).
 */

export const API_VERSION_HEADER = 'X-Supabase-Api-Version';
export const API_VERSION_2024 = '2024-01-01';

export class AuthError extends StatusError {
  constructor(
    status: number,
    code: string,
    message: string,
    /** Extra top-level body fields, e.g. `weak_password: {reasons}`. */
    readonly extra: Readonly<Record<string, unknown>> = {},
    headers: Readonly<Record<string, string>> = {},
  ) {
    super(status, code, message, headers);
    this.name = 'AuthError';
  }
}

/**
 * An OAuth 2.0 protocol error (RFC 6749 §5.2) of the OAuth server's token endpoint: GoTrue
 * answers these 400 with `{error, error_description}` whatever API version was asked for.
 */
export class OAuthProtocolError extends AuthError {
  constructor(code: string, description: string) {
    super(400, code, description);
    this.name = 'OAuthProtocolError';
  }
}

/** True when the request's `X-Supabase-Api-Version` names 2024-01-01 or a later date. */
export function wantsVersionedErrors(headerValue: string | undefined): boolean {
  if (headerValue === undefined) return false;
  const value = headerValue.trim();
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && value >= API_VERSION_2024;
}

export function authErrorBody(error: AuthError, versioned: boolean): Record<string, unknown> {
  if (error instanceof OAuthProtocolError) return { error: error.code, error_description: error.message };
  return versioned
    ? { code: error.code, message: error.message, ...error.extra }
    : { code: error.status, error_code: error.code, msg: error.message, ...error.extra };
}

export const authErrors = {
  validation: (message: string): AuthError => new AuthError(400, 'validation_failed', message),
  /** GoTrue appends the decoder's reason, as Go's `exceeded max depth`. */
  badJson: (reason?: string): AuthError => new AuthError(400, 'bad_json', reason === undefined ? 'Could not parse request body as JSON' : `Could not parse request body as JSON: ${reason}`),
  bodyTooLarge: (): AuthError => new AuthError(413, 'request_entity_too_large', 'Request body too large'),
  invalidCredentials: (): AuthError => new AuthError(400, 'invalid_credentials', 'Invalid login credentials'),
  emailNotConfirmed: (): AuthError => new AuthError(400, 'email_not_confirmed', 'Email not confirmed'),
  userBanned: (status: 400 | 403, message = 'User is banned'): AuthError => new AuthError(status, 'user_banned', message),
  weakPassword: (message: string, reasons: readonly string[]): AuthError =>
    new AuthError(422, 'weak_password', message, { weak_password: { reasons } }),
  samePassword: (): AuthError =>
    new AuthError(422, 'same_password', 'New password should be different from the old password.'),
  userAlreadyExists: (): AuthError => new AuthError(422, 'user_already_exists', 'User already registered'),
  emailExists: (): AuthError =>
    new AuthError(422, 'email_exists', 'A user with this email address has already been registered'),
  signupDisabled: (): AuthError => new AuthError(422, 'signup_disabled', 'Signups not allowed for this instance'),
  anonymousDisabled: (): AuthError => new AuthError(422, 'anonymous_provider_disabled', 'Anonymous sign-ins are disabled'),
  anonymousPasswordWithoutEmail: (): AuthError =>
    new AuthError(422, 'validation_failed', 'Updating password of an anonymous user without an email or phone is not allowed'),
  /** The project has no SMS sender: GoTrue's answers with the phone provider disabled, 400 on /signup, 422 on /token. */
  phoneDisabled: (status: 400 | 422, message: string): AuthError => new AuthError(status, 'phone_provider_disabled', message),
  /** GoTrue's answer where a feature is switched off; Gantry has no such feature at all. */
  disabled: (status: 400 | 404 | 422, code: string, message: string): AuthError => new AuthError(status, code, message),
  phoneExists: (): AuthError => new AuthError(422, 'phone_exists', 'A user with this phone number has already been registered'),
  phoneNotConfirmed: (): AuthError => new AuthError(400, 'phone_not_confirmed', 'Phone not confirmed'),
  /** Too soon after the last code to this phone (max_frequency), or the project's hourly SMS limit reached. */
  overSmsSendRateLimit: (message: string): AuthError => new AuthError(429, 'over_sms_send_rate_limit', message),
  smsSendFailed: (message: string): AuthError => new AuthError(422, 'sms_send_failed', message),
  noApiKey: (): AuthError => new AuthError(401, 'no_api_key', 'No API key found in request'),
  invalidApiKey: (): AuthError =>
    new AuthError(401, 'invalid_api_key', 'Invalid API key: it is not a key of this project or it has expired'),
  noAuthorization: (): AuthError => new AuthError(401, 'no_authorization', 'This endpoint requires a valid Bearer token'),
  /** 403 as GoTrue's auth middleware; 400 only for a `sub` that is not a UUID. */
  badJwt: (message: string, status: 400 | 403 = 403): AuthError => new AuthError(status, 'bad_jwt', message),
  notAdmin: (): AuthError => new AuthError(403, 'not_admin', 'User not allowed'),
  userNotFound: (status: 403 | 404): AuthError =>
    new AuthError(status, 'user_not_found', status === 404 ? 'User not found' : 'User from sub claim in JWT does not exist'),
  sessionNotFound: (status: 400 | 403): AuthError =>
    new AuthError(
      status,
      'session_not_found',
      status === 400 ? 'Invalid Refresh Token: No Valid Session Found' : 'Session from session_id claim in JWT does not exist',
    ),
  refreshTokenNotFound: (): AuthError =>
    new AuthError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found'),
  refreshTokenAlreadyUsed: (): AuthError =>
    new AuthError(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used'),
  otpExpired: (): AuthError => new AuthError(403, 'otp_expired', 'Email link is invalid or has expired'),
  /** A mailed code (with its address) that matches nothing usable. */
  otpInvalid: (): AuthError => new AuthError(403, 'otp_expired', 'Token has expired or is invalid'),
  rateLimited: (retryAfterSeconds: number): AuthError =>
    new AuthError(429, 'over_request_rate_limit', 'Request rate limit reached', {}, {
      'Retry-After': String(retryAfterSeconds),
    }),
  notFound: (): AuthError => new AuthError(404, 'not_found', 'Not found'),
  unexpected: (): AuthError => new AuthError(500, 'unexpected_failure', 'Unexpected failure, please try again'),
  /** The host's connection budget had no connection in time (GoTrue's request_timeout wording); retrying later is safe. */
  connectionsExhausted: (retryAfterSeconds: number): AuthError =>
    new AuthError(503, 'request_timeout', 'Processing this request timed out, please retry after a moment.', {}, {
      'Retry-After': String(retryAfterSeconds),
    }),
  /** auth-js drops the stored session on any non-retryable refresh error, so transient faults on /token are 503. */
  unavailable: (): AuthError => new AuthError(503, 'unexpected_failure', 'Service temporarily unavailable, please retry'),
} as const;
