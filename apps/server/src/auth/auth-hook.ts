import type { FastifyReply, FastifyRequest } from 'fastify';
import { LOCAL_PRINCIPAL, type Principal, type TokenTable } from './token-table.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling; set on /mcp and /api by the auth hook. */
    principal?: Principal;
  }
}

/** Every route under these prefixes needs a principal; /api needs an operator. */
const PROTECTED = /^\/(mcp|api)(\/|$)/;
const OPERATOR_ONLY = /^\/api(\/|$)/;
const CHALLENGE = 'Bearer realm="studio-reflow"';

/** The path a request is routed by: the matched route's pattern, else the raw path. */
function routedPath(request: FastifyRequest): string {
  return request.routeOptions.url ?? request.url.split('?')[0];
}

/**
 * onRequest hook: reads `Authorization: Bearer <token>` on /mcp and /api. No token or an unknown
 * one: 401 with a WWW-Authenticate challenge; a client on /api: 403. With no tokens configured
 * (loopback only, enforced at start) every caller is the local operator. Tokens are never logged.
 */
export function authHook(tokens: TokenTable) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const path = routedPath(request);
    const rawPath = request.url.split('?')[0];
    if (!PROTECTED.test(path) && !PROTECTED.test(rawPath)) return;
    let principal: Principal | undefined = LOCAL_PRINCIPAL;
    if (tokens.enabled) {
      const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(request.headers.authorization ?? '');
      principal = match ? tokens.lookup(match[1]) : undefined;
      if (!principal) {
        const problem = match ? 'invalid_token' : 'invalid_request';
        request.log.info({ reason: problem }, 'request refused: not authenticated');
        return reply
          .code(401)
          .header('www-authenticate', `${CHALLENGE}, error="${problem}"`)
          .send({
            error: match
              ? 'The bearer token is not valid'
              : 'A bearer token is required (Authorization: Bearer <token>)',
            code: 'RFL_UNAUTHENTICATED',
          });
      }
    }
    if ((OPERATOR_ONLY.test(path) || OPERATOR_ONLY.test(rawPath)) && principal.role !== 'operator') {
      request.log.info({ principal: principal.id }, 'request refused: operator role required');
      return reply
        .code(403)
        .header('www-authenticate', `${CHALLENGE}, error="insufficient_scope", scope="operator"`)
        .send({
          error: `Principal ${principal.id} is a ${principal.role}; this route needs an operator`,
          code: 'RFL_FORBIDDEN',
        });
    }
    request.principal = principal;
  };
}
