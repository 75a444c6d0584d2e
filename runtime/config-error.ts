import { CodedError } from './coded-error.js';

/** A setting of the environment or of `gantry.toml` that cannot be used: the start (or the command) stops with it. */
export class ConfigError extends CodedError {
  readonly code = 'invalid_config';
}
