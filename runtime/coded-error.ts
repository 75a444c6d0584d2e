/**
 * A refusal with a stable `code` and a message meant for the user: what the CLI prints as
 * `{"error": {code, message}}` without a stack trace. Any error class that refuses input or a
 * setting extends it, so the CLI needs no list of them; anything else is a crash (`internal`).
 */
export abstract class CodedError extends Error {
  abstract readonly code: string;
}
