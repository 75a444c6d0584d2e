/**
 * A refusal with a stable `code` and a message meant for the user: what the CLI prints as
 * `{"error": {code, message}}` without a stack trace. Any error class that refuses input or a
 * setting extends it, so the CLI needs no list of them; anything else is a crash (`internal`).
 */
export abstract class CodedError extends Error {
  abstract readonly code: string;
}

/**
 * A coded error an API answers: its HTTP status, its stable code and the headers the answer carries.
 * Each API writes it in its own wire format, one serializer each (the data API's PostgREST body in
 * rest/respond.ts, auth's GoTrue body in auth/errors.ts, the call-analysis API's problem document in
 * calls/errors.ts); the subclasses add only what their format has beyond these.
 */
export abstract class StatusError extends CodedError {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}
