import { CodedError } from '../runtime/coded-error.js';
import type { Output } from './output.js';

/**
 * Prints why a command failed and returns its exit code (1). A refusal (a CodedError, or an option
 * node:util's parseArgs does not know) prints its code and message; anything else is `internal`,
 * printed with its message only: its stack trace goes to stderr when GANTRY_DEBUG=1 asks for it.
 */
export function reportFailure(error: unknown, out: Output, env: NodeJS.ProcessEnv = process.env): number {
  if (error instanceof CodedError) {
    out.failure(error.code, error.message);
    return 1;
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
    out.failure('usage', (error as Error).message);
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  out.failure('internal', `${message} (an unexpected error: run again with GANTRY_DEBUG=1 to see its stack trace)`);
  if (env.GANTRY_DEBUG === '1' && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  return 1;
}
