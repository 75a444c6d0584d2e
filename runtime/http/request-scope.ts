import { AsyncLocalStorage } from 'node:async_hooks';

/** What code running for a request can learn about it without being handed the request. */
export interface RequestScope {
  readonly id: string;
  /** The fields every log line of the request carries besides the id (the host's: ref and api). */
  logFields?(): Readonly<Record<string, unknown>>;
}

const storage = new AsyncLocalStorage<RequestScope>();

/**
 * Makes `scope` the current request for the rest of the current execution and everything it
 * starts: the request's stream events, promises and timers. Called where a request enters.
 */
export function enterRequest(scope: RequestScope): void {
  storage.enterWith(scope);
}

/** Runs `fn` as part of a request made earlier (a queued job carries its request's id). */
export function runInRequest<T>(id: string | null | undefined, fn: () => T): T {
  return id ? storage.run({ id }, fn) : fn();
}

export function currentRequest(): RequestScope | undefined {
  return storage.getStore();
}

export function currentRequestId(): string | null {
  return storage.getStore()?.id ?? null;
}

/** The header an outbound call (hook, SMS, webhook) carries: the id of the request that caused it. */
export function requestIdHeader(): Record<string, string> {
  const id = currentRequestId();
  return id === null ? {} : { 'x-request-id': id };
}
