import { CodedError } from '../../runtime/coded-error.js';

/** A schema the generator cannot or must not read. `code` is stable for callers and tests. */
export class IntrospectionError extends CodedError {
  readonly code: 'forbidden_schema' | 'missing_schema' | 'introspection_failed';

  constructor(code: IntrospectionError['code'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IntrospectionError';
    this.code = code;
  }
}
