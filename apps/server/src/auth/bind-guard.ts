import { isIP } from 'node:net';

const LOOPBACK_NAMES = new Set(['localhost', '::1', '[::1]']);

/** Whether a bind address only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  const h = host.trim().toLowerCase();
  if (LOOPBACK_NAMES.has(h)) return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/**
 * Without tokens every caller is the same all-powerful principal, which is only safe when nobody
 * else can connect: refuse any other bind address, saying why and what to do.
 */
export function assertSafeBind(host: string, tokensConfigured: boolean, unauthenticatedBind = false): void {
  if (tokensConfigured || isLoopback(host) || unauthenticatedBind) return;
  throw new Error(
    `Refusing to listen on ${host} without authentication: no AUTH_TOKENS or AUTH_TOKENS_FILE is configured. ` +
      'Configure bearer tokens, or bind to a loopback address (HOST=127.0.0.1). ' +
      '(In a container whose port is published on loopback only, UNAUTHENTICATED_BIND=true accepts this.)',
  );
}
