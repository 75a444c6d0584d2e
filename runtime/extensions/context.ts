import type pg from 'pg';
import type { Logger } from 'pino';
import type { ProjectClaims } from '../auth/jwt.js';
import { ApiError } from '../rest/errors.js';
import type { ExtensionContext } from './define.js';
import { sqlQuery } from './sql.js';

type Query = (text: string, values: readonly unknown[]) => Promise<pg.QueryResult>;
type Effect = () => void | Promise<void>;

/** One request's extension context and the after-commit effects its code registered. */
export interface RequestScope {
  readonly context: ExtensionContext;
  readonly effects: Effect[];
}

export function requestScope(query: Query, claims: ProjectClaims): RequestScope {
  const effects: Effect[] = [];
  const context: ExtensionContext = {
    async sql<R extends object>(strings: TemplateStringsArray, ...values: unknown[]): Promise<R[]> {
      const statement = sqlQuery(strings, values);
      return (await query(statement.text, statement.values)).rows as R[];
    },
    claims,
    user: {
      id: typeof claims.sub === 'string' ? claims.sub : null,
      role: claims.role,
      email: typeof claims.email === 'string' ? claims.email : null,
    },
    afterCommit(effect) {
      effects.push(effect);
    },
  };
  return { context, effects };
}

/** Runs a committed request's effects in order; a failing one is logged and the rest still run. */
export async function runEffects(effects: readonly Effect[], log: Logger, ref: string): Promise<void> {
  for (const effect of effects) {
    try {
      await effect();
    } catch (error) {
      log.error({ ref, err: error }, 'extension afterCommit effect failed');
    }
  }
}

/** Extension code's own failure (neither a typed refusal nor the database's error) is logged: the client sees only a 500. */
export function logExtensionFault(error: unknown, log: Logger, ref: string, what: string): void {
  if (!(error instanceof ApiError) && typeof (error as { code?: unknown }).code !== 'string') log.error({ ref, err: error }, `extension ${what} failed`);
}
