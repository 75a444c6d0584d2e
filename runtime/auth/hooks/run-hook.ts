import { randomUUID } from 'node:crypto';
import type { AuthDeps } from '../auth-deps.js';
import { AuthError } from '../http/errors.js';
import { hookError, hookReportedError } from './hook-output.js';
import { openHookSecrets, type HookName } from '../../settings/hook-settings.js';
import { callHttpHook } from './http-hook.js';
import { callPgFunctionHook } from './pg-function-hook.js';
import { inSpan } from '../../tracing.js';

/** GoTrue's v0hooks names, which its payloads' `metadata.name` carry. */
const METADATA_NAME: Readonly<Record<HookName, string>> = {
  custom_access_token: 'customize-access-token',
  before_user_created: 'before-user-created',
  password_verification_attempt: 'password-verification',
  mfa_verification_attempt: 'mfa-verification',
  send_email: 'send-email',
  send_sms: 'send-sms',
};

export function hookEnabled(deps: AuthDeps, name: HookName): boolean {
  return deps.ctx.settings['auth.hook'][name].enabled;
}

/**
 * Runs an enabled hook with GoTrue's payload (`metadata` first) and returns its output, or
 * throws the AuthError GoTrue answers with: the hook's own `{error: {http_code, message}}`, the
 * HTTP dispatcher's errors, and any other failure as 500 "Error running hook URI".
 */
export async function runHook(deps: AuthDeps, name: HookName, input: Readonly<Record<string, unknown>>, ip: string | null): Promise<unknown> {
  const hook = deps.ctx.settings['auth.hook'][name];
  const payload = {
    metadata: { uuid: randomUUID(), time: deps.now().toISOString(), name: METADATA_NAME[name], ...(ip ? { ip_address: ip } : {}) },
    ...input,
  };
  const started = Date.now();
  let output: unknown;
  try {
    output = await inSpan('auth hook', () => hook.uri.startsWith('pg-functions:')
      ? callPgFunctionHook(deps.ctx.adminPool, hook.uri, payload)
      : callHttpHook(hook.uri, openHookSecrets(deps.ctx.keyring.secret, name, hook.secrets_sealed), payload), { 'gantry.hook': name });
  } catch (error) {
    deps.log.error({ err: error, ref: deps.ctx.ref, hook: name, duration_ms: Date.now() - started }, 'auth hook failed');
    if (error instanceof AuthError) throw error;
    throw hookError(500, `Error running hook URI: ${hook.uri}`);
  }
  const reported = hookReportedError(output);
  if (reported !== null) {
    deps.log.info({ ref: deps.ctx.ref, hook: name, status: reported.status }, 'auth hook answered an error');
    throw reported;
  }
  return output;
}
