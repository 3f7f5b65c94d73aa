import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { authHook } from './auth-hook.ts';
import { addHttpRateLimit } from './http-rate-limit.ts';
import type { TokenTable } from './token-table.ts';
import { transportGuard } from './transport-guard.ts';

export interface SecurityOptions {
  host: string;
  tokens: TokenTable;
  allowedHosts: string[];
  allowedOrigins: string[];
  corsOrigins: string[];
  /** Requests a minute per principal on /mcp and /api (0: off). */
  httpRatePerMinute?: number;
}

/** Paths pino must never print: a bearer token in a logged request or header object. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'request.headers.authorization',
  '*.headers.authorization',
];

/** Splits a comma-separated setting into trimmed, non-empty items. */
export const listSetting = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The security hooks, on the root instance so every route (including ones registered later, like
 * /api) gets them, in this order: Host/Origin (DNS rebinding), CORS (only when configured, so a
 * preflight is answered before authentication), the HTTP rate limit, then bearer authentication and
 * the operator role.
 */
export async function registerSecurity(app: FastifyInstance, options: SecurityOptions): Promise<void> {
  app.addHook('onRequest', transportGuard({ ...options, tokensConfigured: options.tokens.enabled }));
  if (options.corsOrigins.length) {
    await app.register(cors, {
      origin: options.corsOrigins,
      methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
      allowedHeaders: [
        'authorization',
        'content-type',
        'accept',
        'mcp-protocol-version',
        'mcp-method',
        'mcp-name',
        'mcp-session-id',
        'last-event-id',
      ],
      exposedHeaders: ['mcp-session-id', 'www-authenticate'],
      maxAge: 600,
    });
  }
  // Before authentication, so requests without a valid token are limited too (by address).
  await addHttpRateLimit(app, { perMinute: options.httpRatePerMinute ?? 0, tokens: options.tokens });
  app.addHook('onRequest', authHook(options.tokens));
  app.decorateRequest('principal', undefined);
}
