import type { FastifyInstance } from 'fastify';
import { routedPaths } from './routed-paths.ts';

/**
 * The console's policy: its own scripts, styles and API only (it sets element styles through the
 * CSSOM, which a style-src without 'unsafe-inline' allows), and never inside another site's frame.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const CONSOLE = /^\/(ui(\/|$|\?)|$|\?)/;

/**
 * Headers on every answer: no MIME sniffing, no referrer (a console URL may name a task), and no
 * framing (X-Frame-Options for browsers without CSP frame-ancestors). The console (/, /ui, /ui/…,
 * judged as routed, so `/%75i/` too) gets its CSP here; the docs page gets Swagger UI's own, with
 * frame-ancestors 'none' (routes/docs.ts).
 */
export function addSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-frame-options', 'DENY');
    if (routedPaths(request).some((path) => CONSOLE.test(path))) reply.header('content-security-policy', CONSOLE_CSP);
  });
}
