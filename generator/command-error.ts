import { CodedError } from '../runtime/coded-error.js';

/** An error a command reports to the user (exit code 1) rather than a crash. */
export class CliError extends CodedError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
