import { localhostAllowedHostnames, validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isLoopback } from './bind-guard.ts';

export interface TransportGuardOptions {
  host: string;
  /** Without tokens the only legitimate callers are local, whatever the bind address. */
  tokensConfigured: boolean;
  /** Host header names accepted (without port); default: loopback names when bound to loopback or without tokens. */
  allowedHosts?: string[];
  /** Origin hostnames accepted; default: the allowed hosts plus the CORS origins' hostnames. */
  allowedOrigins?: string[];
  corsOrigins?: string[];
}

/**
 * The JSON-RPC code of a Host/Origin refusal. 2026-07-28 makes -32000..-32019 legacy (new code
 * SHOULD NOT use it) and reserves -32020..-32099 for the specification; application codes SHOULD
 * sit outside -32768..-32000. This one echoes the HTTP 403 it comes with.
 */
export const HOST_OR_ORIGIN_REFUSED = -31403;

/**
 * Probes are asked for by address (a load balancer, a pod IP), never by a browser, and say only
 * up or down. /metrics is guarded: it names nodes and counts tasks, which a rebinding page must not
 * read (a scraper reaching the server by another name is listed in ALLOWED_HOSTS).
 */
const UNGUARDED = /^\/(healthz|readyz)(\?|$)/;

/**
 * DNS-rebinding protection with the SDK's own validators: a request whose Host or Origin names
 * another site is refused with 403 before it reaches any route. Browsers always send Host and send
 * Origin on cross-site requests, which is what an attacker's page would make.
 */
export function transportGuard(options: TransportGuardOptions) {
  const localOnly = isLoopback(options.host) || !options.tokensConfigured;
  const hosts = options.allowedHosts?.length
    ? options.allowedHosts
    : localOnly
      ? localhostAllowedHostnames()
      : undefined;
  const fallbackOrigins = [...(hosts ?? []), ...(options.corsOrigins ?? []).map((o) => new URL(o).hostname)];
  const origins = options.allowedOrigins?.length
    ? options.allowedOrigins
    : fallbackOrigins.length
      ? fallbackOrigins
      : undefined;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (UNGUARDED.test(request.url)) return;
    const checks = [
      hosts && validateHostHeader(request.headers.host, hosts),
      origins && validateOriginHeader(request.headers.origin, origins),
    ];
    for (const check of checks) {
      if (check && !check.ok) {
        request.log.warn(
          { host: request.headers.host, origin: request.headers.origin },
          'request refused: host or origin not allowed',
        );
        return reply
          .code(403)
          .send({ jsonrpc: '2.0', error: { code: HOST_OR_ORIGIN_REFUSED, message: check.message }, id: null });
      }
    }
  };
}
