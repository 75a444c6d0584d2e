import { signApiKey } from '../tokens/jwt.js';
import type { GantryConfig } from '../config.js';
import type { ProjectRecord } from './platform.js';

export interface ProjectKeys {
  readonly ref: string;
  readonly url: string;
  readonly anon_key: string;
  readonly service_key: string;
  readonly jwt_secret: string;
}

export function projectUrl(config: GantryConfig, ref: string): string {
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}/v1/${ref}`;
}

/**
 * The project's URL and long-lived API keys. The keys are issued at the project's
 * creation time, so they are the same every time they are printed.
 */
export function projectKeys(config: GantryConfig, record: ProjectRecord): ProjectKeys {
  const issuedAt = Math.floor(record.createdAt.getTime() / 1000);
  return {
    ref: record.ref,
    url: projectUrl(config, record.ref),
    anon_key: signApiKey(record.jwtSecret, 'anon', record.ref, issuedAt),
    service_key: signApiKey(record.jwtSecret, 'service_role', record.ref, issuedAt),
    jwt_secret: record.jwtSecret,
  };
}
