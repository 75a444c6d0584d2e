import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** Requests whose `100 Continue` is held back, with their response (where it is written). */
const awaitingContinue = new WeakMap<IncomingMessage, { readonly res: ServerResponse; readonly keepAlive: boolean }>();

/**
 * Node answers `Expect: 100-continue` with `100 Continue` before any handler runs, which
 * invites bodies the handler will refuse (too large, or no valid credentials). On this
 * server the 100 waits for a body reader that accepts the declared length
 * (`sendContinueIfAwaited`); a request answered without it closes its connection, since the
 * client may or may not send the body it held back and the next request could not be framed.
 */
export function deferContinue(server: Server): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    awaitingContinue.set(req, { res, keepAlive: res.shouldKeepAlive });
    res.shouldKeepAlive = false;
    server.emit('request', req, res);
  });
}

/** Invites the body of a request whose `100 Continue` was held back; nothing for any other request. */
export function sendContinueIfAwaited(req: IncomingMessage): void {
  const awaiting = awaitingContinue.get(req);
  if (!awaiting) return;
  awaitingContinue.delete(req);
  awaiting.res.shouldKeepAlive = awaiting.keepAlive;
  awaiting.res.writeContinue();
}
