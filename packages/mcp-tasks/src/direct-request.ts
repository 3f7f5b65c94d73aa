// What both direct paths (the poll, tasks/get, and the create, a task tool's tools/call) check before
// answering without a per-request server: a plain 2026-07-28 request in exactly the form the SDK
// would accept, from a client that declared the Tasks extension. Anything else returns undefined,
// and the SDK answers it (every error answer is the SDK's, but for a create's final start error: see
// task-call-fast-path.ts).
import { classifyInboundRequest, isJsonContentType } from '@modelcontextprotocol/server';
import { declaresTasks } from './wire.ts';

/** The revisions the direct paths answer; anything else goes the SDK's way. */
const SERVED_REVISIONS = new Set(['2026-07-28']);
const MAX_REMEMBERED_ENVELOPES = 1_000;
/** jsonrpc, id, method, params. */
const REQUEST_MEMBERS = 4;

export interface DirectRequest {
  /** The parsed JSON body. */
  body: unknown;
  headers: { contentType?: string; accept?: string; protocolVersion?: string; method?: string; name?: string };
}

/** The server's name and version, which the SDK stamps on every 2026-07-28 result's _meta. */
export interface ServerInfo {
  name: string;
  version: string;
}

export const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';

/**
 * The request's id, params and envelope (`params._meta`) when it is a plain 2026-07-28 `method`
 * request declaring the Tasks extension, with the headers the transport asks for; else undefined.
 */
export function plainModernRequest(
  request: DirectRequest,
  method: string,
):
  | {
      id: string | number;
      params: Record<string, unknown>;
      meta: Record<string, unknown>;
      headers: DirectRequest['headers'];
    }
  | undefined {
  const { body, headers } = request;
  if (headers.method?.trim() !== method || headers.protocolVersion === undefined) return undefined;
  if (!isJsonContentType(headers.contentType ?? null)) return undefined;
  if (!headers.accept?.includes('application/json') || !headers.accept.includes('text/event-stream')) return undefined;
  if (!isPlainObject(body) || body.jsonrpc !== '2.0' || body.method !== method || !isPlainObject(body.params))
    return undefined;
  // Exactly a request's members: anything beside them (an extra member, `result` or `error` beside
  // `method`) makes it something the SDK must judge. The verdict cached below covers only the envelope.
  if (Object.keys(body).length !== REQUEST_MEMBERS) return undefined;
  const id = body.id;
  // Only ids no JSON-RPC reader can disagree on: strings and integers that round-trip exactly.
  if (!(typeof id === 'string' || Number.isSafeInteger(id))) return undefined;
  const meta = body.params._meta;
  if (!isPlainObject(meta) || !declaresTasks(meta) || !envelopeServed(body, headers, meta)) return undefined;
  return { id: id as string | number, params: body.params, meta, headers };
}

/**
 * Whether the SDK's own classifier routes this request to the modern era we serve. Its verdict
 * depends only on the headers and the envelope (the rest of the request was checked above), and a
 * poller repeats both on every poll: the verdict is remembered per (headers, envelope), which
 * saves a schema validation per poll.
 */
const verdicts = new Map<string, boolean>();

function envelopeServed(
  body: Record<string, unknown>,
  headers: DirectRequest['headers'],
  meta: Record<string, unknown>,
): boolean {
  const key = `${headers.protocolVersion}\n${headers.method}\n${JSON.stringify(meta)}`;
  let served = verdicts.get(key);
  if (served === undefined) {
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: headers.protocolVersion,
      mcpMethodHeader: headers.method,
      body,
    });
    served =
      route.kind === 'modern' &&
      route.messageKind === 'request' &&
      SERVED_REVISIONS.has(route.classification.revision ?? '');
    if (verdicts.size >= MAX_REMEMBERED_ENVELOPES) verdicts.delete(verdicts.keys().next().value!);
    verdicts.set(key, served);
  }
  return served;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
