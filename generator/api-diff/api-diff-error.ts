import { CodedError } from '../../runtime/coded-error.js';

/** A report that cannot be made: a base revision git does not know, an unreadable description, a linter that did not run. */
export class ApiDiffError extends CodedError {
  constructor(
    readonly code: 'base_not_found' | 'not_a_git_repository' | 'description_invalid' | 'lint_failed',
    message: string,
  ) {
    super(message);
  }
}
