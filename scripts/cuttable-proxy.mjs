// A TCP proxy in front of the tests' PostgreSQL server that a test can cut and restore: a real
// outage as one node meets it (its open connections reset, new ones refused), without stopping the
// server the rest of the test reads through. `stall` holds what the node sends (a statement in
// flight that is never answered), so a test can cut the connection under a chosen statement.
import { connect, createServer } from 'node:net';
import { freePort } from './free-port.mjs';

/** The proxy (its types: cuttable-proxy.d.mts). */
export async function cuttableProxy(upstreamUrl) {
  const upstream = new URL(upstreamUrl);
  const port = await freePort();
  const sockets = new Set();
  let stalled = false;
  const track = (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A reset peer is the point of the exercise, not a failure of the test.
    socket.on('error', () => {});
  };
  let server;
  const listen = () =>
    new Promise((resolve, reject) => {
      if (server) return resolve(undefined);
      stalled = false;
      server = createServer((client) => {
        track(client);
        const database = connect(Number(upstream.port || 5432), upstream.hostname);
        track(database);
        client.on('data', (chunk) => {
          if (!stalled) database.write(chunk);
        });
        database.pipe(client);
        client.on('close', () => database.destroy());
        database.on('close', () => client.destroy());
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve(undefined));
    });
  const stop = () =>
    new Promise((resolve) => {
      const closing = server;
      server = undefined;
      for (const socket of sockets) socket.resetAndDestroy();
      if (closing) closing.close(() => resolve(undefined));
      else resolve(undefined);
    });
  await listen();
  const url = new URL(upstreamUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    stall: () => {
      stalled = true;
    },
    cut: stop,
    restore: listen,
    close: stop,
  };
}
