import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * How long a refused request may go on sending after its answer. Closing at once would make
 * the client's next write draw a TCP reset, which can discard the answer before the client
 * reads it (RFC 9112 section 9.6); nginx's lingering_timeout is 5 s too.
 */
export const LINGER_MS = 5_000;

/**
 * The answer to this request ends the connection: it carries `Connection: close`; once it is
 * flushed the server half-closes (FIN) and drops whatever the client still sends until the
 * client closes its side too, or LINGER_MS pass.
 */
export function closeAfterResponse(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Connection', 'close');
  req.resume();
  const socket = req.socket;
  // Node ends a `Connection: close` exchange with destroySoon() once the answer is written.
  socket.destroySoon = () => {
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    // Sockets destroy themselves once both sides have ended.
    socket.end();
  };
}
