// How Fastify routes a request, for hooks that decide by path (the rate limit, the console's CSP):
// judging the raw request.url instead let `/%6Dcp`, `/mcp#x` and `http://host/mcp` past them.
import type { FastifyRequest } from 'fastify';

/**
 * The paths a hook that decides by path must judge a request by: the pattern of the route Fastify
 * matched, and the path as its router reads the request target (an absolute-form target's origin
 * dropped, the path ended at ? or #, percent-escapes of ASCII characters decoded). Never the raw
 * request.url alone: Fastify routes `/%6Dcp`, `/mcp#x` and `http://host/mcp` to /mcp. The second
 * covers a request no route matched (a 404), which has no pattern.
 */
export function routedPaths(request: FastifyRequest): string[] {
  const path = request.url
    .replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '')
    .split(/[?#]/, 1)[0]
    .replace(/%([0-7][0-9a-f])/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  const route = request.routeOptions.url;
  return route === undefined ? [path] : [route, path];
}
