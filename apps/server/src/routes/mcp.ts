import { Readable } from 'node:stream';
import { createMcpHandler } from '@modelcontextprotocol/server';
import {
  DEFAULT_HELD_PER_PRINCIPAL,
  HeldRequests,
  answerLegacyTaskCall,
  answerLegacyTaskPoll,
  answerTaskToolCall,
  answerTasksGet,
  LEGACY_POLL_REVISION,
  LegacySessions,
  listenForUnexpectedErrors,
  TaskListenRouter,
  ToolRefusal,
} from '@reflow/mcp-tasks';
import { EngineStoppingError } from '@reflow/tasks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CreationLimits } from '../auth/creation-limits.ts';
import { toAuthInfo } from '../auth/principal-auth-info.ts';
import type { Principal } from '../auth/token-table.ts';
import { callerTasks, heldBy, mcpServerFactory, SERVER_NAME, taskToolsFor } from '../mcp-server.ts';
import type { Services } from '../services.ts';
import { databaseTrouble, isDatabaseUnavailable } from './database-unavailable.ts';

export interface McpRouteOptions {
  services: Services;
  version: string;
  bodyLimit: number;
  /** Per-principal limits on creating tasks. */
  limits?: CreationLimits;
  /** Requests a principal the limits apply to may hold open at once on this node (waits, listens, sessions). */
  heldPerPrincipal?: number;
  /** Answer plain tasks/get polls (2026-07-28 and 2025-11-25) without a per-request server (the default; off only to compare). */
  fastTasksGet?: boolean;
  /** Answer plain creates (a task tool's tools/call, 2026-07-28 and 2025-11-25 with params.task) without a per-request server (the default; off only to compare). */
  fastTaskCalls?: boolean;
}

/**
 * POST /mcp (and the 405s for GET/DELETE) through the SDK's createMcpHandler, which serves the
 * 2026-07-28 era and, statelessly, 2025-era clients from one factory. The SDK answers malformed
 * JSON and wrong media types itself, as the transport spec says; a body that parses is handed to
 * it parsed, so it neither clones the request nor reads the body a second time.
 */
export async function mcpRoutes(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  const { services } = options;
  const serverInfo = { name: SERVER_NAME, version: options.version };
  // What each limited principal holds open on this node: waits, listen streams, 2025-11-25 sessions.
  const held = new HeldRequests(options.heldPerPrincipal ?? DEFAULT_HELD_PER_PRINCIPAL);
  const heldOf = (caller: Principal) => heldBy(caller, options.limits, held);
  const handler = createMcpHandler(mcpServerFactory(services, options.version, options.limits, held), {
    maxRequestBodySize: options.bodyLimit,
    onerror: (error) => app.log.debug({ err: error }, 'mcp request rejected'),
  });
  // subscriptions/listen naming tasks (Task Status Notifications) is served here; the SDK's
  // listen router knows only the list_changed and resource filters.
  const listens = new TaskListenRouter({ serverInfo });
  // 2025-11-25 sessions (Mcp-Session-Id, the GET stream, DELETE): where notifications/tasks/status goes.
  const sessions = new LegacySessions({
    factory: mcpServerFactory(services, options.version, options.limits, held),
  });
  // Closing: listen streams end at once; each 2025-11-25 session once its requests are answered (its
  // tasks/result waits when the engine has stopped), not waited for here, so that the server stops
  // taking connections meanwhile.
  let sessionsClosed: Promise<void> | undefined;
  app.addHook('preClose', async () => {
    listens.close();
    sessionsClosed = sessions.close();
  });
  app.addHook('onClose', async () => {
    await sessionsClosed;
    await handler.close();
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: options.bodyLimit }, (_req, body, done) =>
    done(null, body),
  );

  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: '/mcp',
    handler: async (request, reply) => {
      try {
        return await answerMcp(request, reply);
      } catch (error) {
        if (!isDatabaseUnavailable(error)) throw error;
        // A JSON-RPC error at once, never a hang or a bare 500: the client may retry.
        const { code, message } = databaseTrouble(error);
        request.log.warn({ err: error, code }, 'database unavailable');
        const id = (parseJson((request.body as Buffer | undefined) ?? Buffer.alloc(0)) as { id?: unknown } | undefined)
          ?.id;
        return reply
          .code(503)
          .header('retry-after', '1')
          .type('application/json')
          .send({
            jsonrpc: '2.0',
            id: typeof id === 'string' || typeof id === 'number' ? id : null,
            error: { code: -32603, message, data: { code } },
          });
      }
    },
  });

  async function answerMcp(request: FastifyRequest, reply: FastifyReply) {
    const body = request.method === 'POST' ? (request.body as Buffer | undefined) : undefined;
    const parsedBody = body?.length ? parseJson(body) : undefined;
    // The auth hook has verified the caller; the SDK hands it to the server factory as authInfo.
    const authInfo = request.principal && !request.principal.local ? toAuthInfo(request.principal) : undefined;

    // The poll every waiting client repeats: answered here when it is a plain one for a visible task.
    if (options.fastTasksGet !== false && parsedBody !== undefined && request.headers['mcp-method'] === 'tasks/get') {
      const { caller, store } = callerTasks(services, authInfo);
      const answer = await answerTasksGet(
        { body: parsedBody, headers: mcpHeaders(request) },
        (taskId) => store.get(taskId, caller.id),
        serverInfo,
      );
      if (answer) {
        services.metrics.mcpRequests.inc({ method: 'tasks/get', path: 'direct' });
        return reply.type('application/json').send(answer);
      }
    }
    // The same poll from a 2025-era client (tasks/get, and tasks/list where it is served): no Mcp-Method header there.
    if (
      options.fastTasksGet !== false &&
      parsedBody !== undefined &&
      request.headers['mcp-protocol-version'] === LEGACY_POLL_REVISION
    ) {
      const { caller, store } = callerTasks(services, authInfo);
      // As the SDK path's LegacyTasks: the caller's id, and tasks/list only where requestors are told apart.
      // A poll needs no session: one of a session open here is answered as a stateless one.
      const headers = mcpHeaders(request);
      if (sessions.knows(headers.sessionId, caller.id)) delete headers.sessionId;
      const answer = await answerLegacyTaskPoll(
        { body: parsedBody, headers },
        { principal: caller.id, store, listable: !caller.local },
      );
      if (answer) {
        services.metrics.mcpRequests.inc({ method: answer.method, path: 'direct' });
        return reply.code(answer.status).headers(answer.headers).send(answer.body);
      }
    }
    // The client hanging up before the answer is written cancels the request (2026-07-28
    // transports/cancellation): the SDK aborts the handler's signal when this one aborts, and so do
    // the direct answers and the listen router; a 2025-11-25 session ends only its tasks/result waits.
    const hangUp = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) hangUp.abort(new Error('the client closed the connection'));
    });

    // A 2025-11-25 session's requests, and the initialize that opens one, are its transport's to serve
    // (its plain polls were answered above); an id no session here has is 404, as the spec says.
    const sessionId = one(request, 'mcp-session-id');
    if (sessionId !== undefined || LegacySessions.opens(parsedBody, one(request, 'mcp-protocol-version'))) {
      const { caller, store } = callerTasks(services, authInfo);
      const answer = await hearingStartErrors(request, () =>
        sessions.answer(sessionId, {
          request: webRequest(request, body, hangUp.signal),
          parsedBody,
          authInfo,
          principal: caller.id,
          store,
          done: new Promise((resolve) => reply.raw.once('close', resolve)),
          held: heldOf(caller),
        }),
      );
      if (answer) {
        services.metrics.mcpRequests.inc({ method: mcpMethodLabel(request), path: 'session' });
        return sendResponse(reply, answer);
      }
    }
    // The create every task-declaring client sends: answered here when it is a plain one.
    if (options.fastTaskCalls !== false && parsedBody !== undefined && request.headers['mcp-method'] === 'tools/call') {
      const { caller } = callerTasks(services, authInfo);
      // The tools are built only for a request that is a plain create. Store trouble its start meets
      // is thrown: the 503 above, as the SDK path gives (hearingStartErrors).
      const answer = await answerTaskToolCall(
        { body: parsedBody, headers: mcpHeaders(request) },
        (name) => taskToolsFor(services, caller, options.limits, heldOf(caller)).get(name),
        { principal: caller.id, signal: hangUp.signal },
        serverInfo,
        metAgain,
      ).catch((error: unknown) => {
        // Answered here all the same (the 503), as the SDK path counts the create it answers 503.
        services.metrics.mcpRequests.inc({ method: 'tools/call', path: 'direct' });
        throw error;
      });
      if (answer) {
        services.metrics.mcpRequests.inc({ method: 'tools/call', path: 'direct' });
        // The SDK's media type exactly: Fastify adds a charset to a string's, not to a Buffer's.
        return reply.header('content-type', 'application/json').send(Buffer.from(answer));
      }
    }
    // The same create from a 2025-era client (tools/call with params.task): no Mcp-Method header there.
    if (
      options.fastTaskCalls !== false &&
      parsedBody !== undefined &&
      request.headers['mcp-protocol-version'] === LEGACY_POLL_REVISION
    ) {
      const { caller } = callerTasks(services, authInfo);
      // The tools are built only for a request that is a plain create. Store trouble is answered
      // as the SDK path answers it on this wire (an in-band internal error, logged here).
      const answer = await listenForUnexpectedErrors(
        (error, tool) => request.log.error({ err: error, tool }, 'a task tool failed'),
        () =>
          answerLegacyTaskCall(
            { body: parsedBody, headers: mcpHeaders(request) },
            (name) => taskToolsFor(services, caller, options.limits, heldOf(caller)).get(name),
            { principal: caller.id, signal: hangUp.signal },
            metAgain,
          ),
      );
      if (answer) {
        services.metrics.mcpRequests.inc({ method: 'tools/call', path: 'direct' });
        return reply.code(answer.status).headers(answer.headers).send(answer.body);
      }
    }

    if (parsedBody !== undefined && request.headers['mcp-method'] === 'subscriptions/listen') {
      const { caller, store } = callerTasks(services, authInfo);
      const listen = await listens.answer({
        body: parsedBody,
        headers: mcpHeaders(request),
        principal: caller.id,
        store,
        signal: hangUp.signal,
        held: heldOf(caller),
      });
      if (listen) {
        services.metrics.mcpRequests.inc({ method: 'subscriptions/listen', path: 'direct' });
        return sendResponse(reply, listen);
      }
    }
    // On PostgreSQL a database lost mid-run is found here (one SELECT 1), before the SDK, which answers
    // whatever a handler throws in-band (HTTP 200): the caller gets the 503 below.
    if (services.store.dialect === 'postgres') await services.store.ping();
    services.metrics.mcpRequests.inc({ method: mcpMethodLabel(request), path: 'sdk' });

    const response = await hearingStartErrors(request, () =>
      handler.fetch(webRequest(request, body, hangUp.signal), {
        authInfo,
        ...(parsedBody !== undefined ? { parsedBody } : {}),
      }),
    );
    return sendResponse(reply, response);
  }
}

/**
 * Whether the SDK path's identical create would meet what a direct create's start threw (store
 * trouble, the engine shutting down): the direct path answers it, and the create is not run twice.
 */
function metAgain(error: unknown): boolean {
  return isDatabaseUnavailable(error) || (error instanceof ToolRefusal && error.cause instanceof EngineStoppingError);
}

/**
 * The SDK's answer to `request`, hearing what a task tool (its start or run) threw that was no
 * refusal (the caller is told only "internal error"): logged here, except store trouble met before
 * the answer was ready, which is thrown instead, so the route answers 503 with its code (the client
 * may retry).
 */
async function hearingStartErrors<T extends Response | undefined>(
  request: FastifyRequest,
  serve: () => Promise<T>,
): Promise<T> {
  let trouble: Error | undefined;
  let answered = false;
  const response = await listenForUnexpectedErrors((error, tool) => {
    if (!answered && error instanceof Error && isDatabaseUnavailable(error)) trouble ??= error;
    else request.log.error({ err: error, tool }, 'a task tool failed');
  }, serve);
  answered = true;
  if (trouble === undefined) return response;
  await response?.body?.cancel();
  throw trouble;
}

/** The request as the SDK's web-standard handlers take it. */
function webRequest(request: FastifyRequest, body: Buffer | undefined, signal?: AbortSignal): Request {
  const url = `http://${request.headers.host ?? 'localhost'}${request.url}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(url, { method: request.method, headers, body: body && body.length ? body : undefined, signal });
}

function one(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function sendResponse(reply: FastifyReply, response: Response) {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    reply.header(name, value);
  });
  return response.body ? reply.send(Readable.fromWeb(response.body as never)) : reply.send();
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

const LABELLED_METHODS = new Set([
  'server/discover',
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
  'tasks/list',
  'tasks/result',
  'subscriptions/listen',
]);

/** The Mcp-Method header when it names a method we label; anything else is "other", never a label per value a client sends. */
function mcpMethodLabel(request: FastifyRequest): string {
  const method = request.headers['mcp-method'];
  return typeof method === 'string' && LABELLED_METHODS.has(method) ? method : 'other';
}

function mcpHeaders(request: FastifyRequest) {
  return {
    contentType: one(request, 'content-type'),
    accept: one(request, 'accept'),
    protocolVersion: one(request, 'mcp-protocol-version'),
    method: one(request, 'mcp-method'),
    name: one(request, 'mcp-name'),
    sessionId: one(request, 'mcp-session-id'),
  };
}
