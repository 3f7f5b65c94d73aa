// What both 2025-11-25 direct paths (the poll — tasks/get, tasks/list — and the create, a task
// tool's tools/call with params.task) check before answering without a per-request server: a plain
// request from a 2025-era client, in exactly the form the SDK's stateless 2025-era transport serves.
// Anything else returns undefined, and the SDK answers it (every error answer is the SDK's, but for a
// create's final start error, written here in the SDK's bytes: see legacy-task-call.ts).
import { classifyInboundRequest, isJsonContentType } from '@modelcontextprotocol/server';

/** The one 2025-era revision that has the task API; other versions go the SDK's way. */
export const LEGACY_POLL_REVISION = '2025-11-25';
const REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);

export interface LegacyDirectRequest {
  /** The parsed JSON body. */
  body: unknown;
  headers: {
    contentType?: string;
    accept?: string;
    protocolVersion?: string;
    method?: string;
    name?: string;
    sessionId?: string;
  };
}

/** What the SDK's stateless WebStandardStreamableHTTPServerTransport answers a request with (no session, no event store). */
export const LEGACY_SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
});

/**
 * The request's body and id when it is a plain 2025-11-25 request — the version header and no other
 * MCP header (a 2025-era client sends neither the 2026 routing headers nor, here, stateless, a
 * session id), the media types the transport asks for, exactly a request's members and an id no
 * JSON-RPC reader can disagree on — else undefined. Its method and params are the caller's to check.
 */
export function plainLegacyRequest(
  request: LegacyDirectRequest,
): { body: Record<string, unknown>; id: string | number } | undefined {
  const { body, headers } = request;
  if (headers.protocolVersion !== LEGACY_POLL_REVISION) return undefined;
  if (headers.method !== undefined || headers.name !== undefined || headers.sessionId !== undefined) return undefined;
  if (!isJsonContentType(headers.contentType ?? null)) return undefined;
  if (!headers.accept?.includes('application/json') || !headers.accept.includes('text/event-stream')) return undefined;
  if (!isPlainObject(body) || body.jsonrpc !== '2.0') return undefined;
  // Exactly a request's members: anything beside them is for the SDK to judge.
  if (!Object.keys(body).every((key) => REQUEST_MEMBERS.has(key))) return undefined;
  const id = body.id;
  // Only ids no JSON-RPC reader can disagree on: strings and integers that round-trip exactly.
  if (!(typeof id === 'string' || Number.isSafeInteger(id))) return undefined;
  return { body, id: id as string | number };
}

/** The SSE stream the SDK's transport writes for one answer: one `message` event, the response's members in its order (result, jsonrpc, id). */
export function legacySseAnswer(result: unknown, id: string | number): string {
  return `event: message\ndata: ${JSON.stringify({ result, jsonrpc: '2.0', id })}\n\n`;
}

/** The same stream for a JSON-RPC error: the SDK's members in its order (jsonrpc, id, error). */
export function legacySseError(error: { code: number; message: string; data?: unknown }, id: string | number): string {
  const { code, message, data } = error;
  return `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } })}\n\n`;
}

/**
 * Whether the SDK's own classifier routes this request to the 2025 era, which it serves statelessly.
 * After the checks above (the 2025-11-25 header, exactly a request's members) and the caller's (no
 * `_meta` in params) its verdict depends on the method alone: it is remembered per method, which
 * saves the schema validations of a classification on every request.
 */
const verdicts = new Map<unknown, boolean>();

export function servedAsLegacy(body: Record<string, unknown>): boolean {
  let served = verdicts.get(body.method);
  if (served === undefined) {
    const route = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: LEGACY_POLL_REVISION, body });
    served = route.kind === 'legacy' && route.reason === 'no-claim';
    verdicts.set(body.method, served);
  }
  return served;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
