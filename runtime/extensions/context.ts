import type pg from 'pg';
import type { LoadedExtension } from './loader.js';
import type { ProjectClaims } from '../tokens/jwt.js';
import { ApiError, isPgError, type PgErrorLike } from '../rest/errors.js';
import type { ExtensionContext } from './define.js';
import { sqlQuery } from './sql.js';

type Query = (text: string, values: readonly unknown[]) => Promise<pg.QueryResult>;
type Effect = () => void | Promise<void>;

/** One request's extension context and the after-commit effects its code registered. */
export interface RequestScope {
  readonly context: ExtensionContext;
  readonly effects: Effect[];
}

/**
 * SQLSTATEs a request brings about with what it sends or who sends it, answered as PostgREST maps them: a
 * privilege or RLS refusal (42501), a data exception (class 22: a value that does not fit) or a constraint
 * (class 23) the input breaks, a write in a read-only transaction (25006), a function's own RAISE (P0001,
 * PT…, PGRST), and the database being busy or away (classes 08, 40, 53, 57). Any other error of an
 * extension's query (an undefined column, table or function, a syntax error, …) is the extension's bug.
 */
function causedByRequest(code: string): boolean {
  return code === '42501' || code === '25006' || code === 'P0001' || code === 'PGRST' || code.startsWith('PT') || /^(08|22|23|40|53|57)/.test(code);
}

/**
 * An extension's query that failed through no fault of the request: answered as any extension bug is,
 * 500 `PGRSTX00` saying nothing of it (never the schema's names the database's message holds), and logged.
 */
export class ExtensionQueryFault extends Error {
  constructor(readonly sqlState: string, cause: PgErrorLike) {
    super(`ctx.sql failed with ${sqlState}: ${cause.message}`, { cause });
    this.name = 'ExtensionQueryFault';
  }
}

export function requestScope(query: Query, claims: ProjectClaims): RequestScope {
  const effects: Effect[] = [];
  const context: ExtensionContext = {
    async sql<R extends object>(strings: TemplateStringsArray, ...values: unknown[]): Promise<R[]> {
      const statement = sqlQuery(strings, values);
      try {
        return (await query(statement.text, statement.values)).rows as R[];
      } catch (error) {
        if (isPgError(error) && !causedByRequest(error.code)) throw new ExtensionQueryFault(error.code, error);
        throw error;
      }
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

/** Where an extension's failures are logged, and how to find the throw site in its sources. */
export type FaultLog = Pick<LoadedExtension, 'log' | 'locate'>;

/** Runs a committed request's effects in order; a failing one is logged and the rest still run. */
export async function runEffects(effects: readonly Effect[], faults: FaultLog, ref: string): Promise<void> {
  for (const effect of effects) {
    try {
      await effect();
    } catch (error) {
      faults.log.error({ ref, err: error, at: faults.locate(error) }, 'extension afterCommit effect failed');
    }
  }
}

/** Extension code's own failure (neither a typed refusal nor a database error the request brought about) is logged: the client sees only a 500. */
export function logExtensionFault(error: unknown, faults: FaultLog, ref: string, what: string): void {
  if (!(error instanceof ApiError) && typeof (error as { code?: unknown }).code !== 'string') {
    faults.log.error({ ref, err: error, at: faults.locate(error) }, `extension ${what} failed`);
  }
}
