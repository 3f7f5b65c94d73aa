import rateLimit from '@fastify/rate-limit';
import createError from '@fastify/error';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { routedPaths } from './routed-paths.ts';
import type { TokenTable } from './token-table.ts';

const LIMITED = /^\/(mcp|api)(\/|\?|$)/;

export const HttpRateLimitedError = createError<'RFL_HTTP_RATE_LIMITED', 429, [string, number, number]>(
  'RFL_HTTP_RATE_LIMITED',
  '%s sent more than %d requests in a minute; retry in %d s',
  429,
);

/**
 * Requests to /mcp and /api, judged as routed (`/%61pi/nodes` counts as /api/nodes), per principal
 * (its token, looked up as the auth hook does) or per IP for a request without a valid token,
 * counted on this node in one-minute windows (@fastify/rate-limit). Task creation has its own
 * cluster-wide limits in the database; this bounds the plain request rate (polls, listings, refused
 * calls). Runs before authentication, so a caller trying tokens is limited by address. Off without
 * tokens: such a server is reachable from loopback only.
 */
export async function addHttpRateLimit(
  app: FastifyInstance,
  options: { perMinute: number; tokens: TokenTable },
): Promise<void> {
  if (options.perMinute === 0 || !options.tokens.enabled) return;
  const keyOf = (request: FastifyRequest) => {
    const token = /^Bearer[ ]+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    const principal = token === undefined ? undefined : options.tokens.lookup(token);
    return principal ? `principal ${principal.id}` : `address ${request.ip}`;
  };
  await app.register(rateLimit, { global: false });
  app.addHook(
    'onRequest',
    app.rateLimit({
      max: options.perMinute,
      timeWindow: 60_000,
      keyGenerator: keyOf,
      allowList: (request) => !routedPaths(request).some((path) => LIMITED.test(path)),
      errorResponseBuilder: (request, context) =>
        new HttpRateLimitedError(keyOf(request), context.max, Math.max(1, Math.ceil(context.ttl / 1000))),
    }),
  );
}
