// A free TCP port on 127.0.0.1 for a server a test stops and starts again on the same port.
// Never one of the kernel's ephemeral ports (`listen(0)` hands out exactly those): while the
// server is down, a client reconnecting to it is given an ephemeral local port, and when that
// port is the server's own, TCP connects the socket to itself (a "self-connect"). The server
// then cannot bind its port again. Below the ephemeral range nothing is handed out implicitly.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The first ephemeral port (Linux's ip_local_port_range; IANA's 49152 elsewhere). */
function firstEphemeralPort() {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return 49152;
  }
}

function listensOn(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port in [10000, first ephemeral port) that nothing listens on now. */
export async function freePort() {
  const low = 10_000;
  const high = Math.max(low + 1_000, firstEphemeralPort());
  for (let tries = 0; tries < 200; tries++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await listensOn(port)) return port;
  }
  throw new Error(`No free port found in ${low}–${high - 1} after 200 tries`);
}
