import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * From the moment the app starts closing, every connection with no request in flight is ended: at
 * once, or as soon as its last answer is sent.
 *
 * Node's server, when closed, ends only the connections that sit between two requests, once. It
 * leaves open a connection that has sent no request yet (Node counts it as active: its headers
 * timer runs, and that check stops at close) and one whose answer ends after close was called
 * (kept alive for keepAliveTimeout, Fastify's 72 s) — and close() resolves only when the last
 * connection has gone. fetch reconnects at once after a request it dropped, and keeps the new,
 * unused connection until the server's keep-alive hint runs out (70 s): a client that dropped two
 * waits (legacy tasks/result, say) kept the server from closing for 70 s.
 */
export function endIdleConnectionsOnClose(app: FastifyInstance): void {
  const open = new Set<Socket>();
  /** Requests in flight per connection (more than one only when a client pipelines). */
  const inFlight = new Map<Socket, number>();
  let closing = false;

  app.server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      inFlight.delete(socket);
    });
  });
  app.server.on('request', (request, response) => {
    const socket = request.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    response.once('close', () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      if (left > 0) inFlight.set(socket, left);
      else {
        inFlight.delete(socket);
        if (closing) socket.destroy();
      }
    });
  });
  app.addHook('preClose', async () => {
    closing = true;
    for (const socket of open) if (!inFlight.has(socket)) socket.destroy();
  });
}
