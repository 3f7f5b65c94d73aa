// 2025-11-25 sessions over HTTP, a delivery channel only: `initialize` answers with an
// Mcp-Session-Id; the session's standalone GET stream carries `notifications/tasks/status` for the
// tasks created in it (legacy-status-push.ts), resumable with Last-Event-ID; DELETE ends it. The
// SDK's sessionful WebStandardStreamableHTTPServerTransport serves each session. Tasks stay rows
// owned by the principal: polling works without a session on any node, and a request without a
// session id is served statelessly as before (the caller's route, not this class).
import { randomUUID } from 'node:crypto';
import {
  ProtocolErrorCode,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpServer,
  type McpRequestContext,
} from '@modelcontextprotocol/server';
import { BoundedEventStore } from './bounded-event-store.ts';
import { LegacyStatusPushTransport } from './legacy-status-push.ts';
import { HeldRequestsLimitError, holdFor, type HeldRequests } from './held-requests.ts';
import type { TaskFollower } from './task-subscription.ts';

export interface LegacySessionsOptions {
  /** Builds the session's server (once per session, era `legacy`). */
  factory: (ctx: McpRequestContext) => McpServer | Promise<McpServer>;
  /** Sessions open at once at most; an initialize beyond is served statelessly (no session id). */
  maxSessions?: number;
  /** A session with no request and no open GET stream for this long is ended. */
  idleMs?: number;
  /** Events kept per session for Last-Event-ID replay. */
  replayEvents?: number;
}

export interface LegacySessionRequest {
  /**
   * The HTTP request. Its `signal` aborting means the client hung up before the answer was sent:
   * a `tasks/result` wait in it ends, as a stateless one does (see waitIds).
   */
  request: Request;
  parsedBody?: unknown;
  authInfo?: AuthInfo;
  /** Who asks; a session answers only the principal that opened it. */
  principal: string;
  /** The tasks this principal can see. */
  store: TaskFollower;
  /** Resolves when the HTTP exchange is over (the response sent, or the client gone). */
  done: Promise<unknown>;
  /**
   * The principal's cap on what it holds open: a session is one, while it lasts. An initialize over
   * it is served statelessly (no session id), as one over `maxSessions` is. None: not limited.
   */
  held?: HeldRequests;
}

interface Session {
  principal: string;
  transport: WebStandardStreamableHTTPServerTransport;
  push: LegacyStatusPushTransport;
  server: McpServer;
  lastSeen: number;
  /** Requests (a GET stream among them) still open. */
  open: number;
  /** Called each time `open` falls to 0. */
  onIdle?: () => void;
  /** Gives back the principal's held request the session counts as. */
  release: () => void;
}

export class LegacySessions {
  readonly #sessions = new Map<string, Session>();
  readonly #o: Required<LegacySessionsOptions>;
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: LegacySessionsOptions) {
    this.#o = { maxSessions: 1_000, idleMs: 30 * 60_000, replayEvents: 500, ...options };
    this.#sweeper = setInterval(() => this.#sweep(), Math.min(60_000, this.#o.idleMs));
    this.#sweeper.unref();
  }

  get count(): number {
    return this.#sessions.size;
  }

  /** Whether `sessionId` is a session open here for this principal. */
  knows(sessionId: string | undefined, principal: string): boolean {
    return sessionId !== undefined && this.#sessions.get(sessionId)?.principal === principal;
  }

  /** Whether this request opens a session: a 2025-era initialize (no modern protocol header). */
  static opens(parsedBody: unknown, protocolVersionHeader: string | undefined): boolean {
    return (
      protocolVersionHeader === undefined &&
      parsedBody !== null &&
      typeof parsedBody === 'object' &&
      (parsedBody as { method?: unknown }).method === 'initialize'
    );
  }

  /**
   * Serves a request carrying `sessionId` (404 when no such session is open here for this
   * principal), or opens a session with an initialize. Undefined: the caller serves it statelessly.
   */
  async answer(sessionId: string | undefined, r: LegacySessionRequest): Promise<Response | undefined> {
    if (sessionId === undefined) return this.#open(r);
    const session = this.#sessions.get(sessionId);
    // Another principal's session reads as none at all.
    if (!session || session.principal !== r.principal)
      return Response.json(
        { jsonrpc: '2.0', id: null, error: { code: -32001, message: `Session not found: ${sessionId}` } },
        { status: 404 },
      );
    return this.#serve(session, r);
  }

  /**
   * Ends every session (the server stops): no session takes another request, GET streams close at
   * once, and each session's server closes once the requests it is answering have been answered (a
   * tasks/result wait, say, is answered when the server stops serving waits); clients re-initialize
   * elsewhere. Resolves when every session has ended.
   */
  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    const sessions = [...this.#sessions.keys()].map((id) => this.#end(id)!);
    await Promise.all(
      sessions.map(async (session) => {
        session.transport.closeStandaloneSSEStream();
        if (session.open > 0) await new Promise<void>((resolve) => (session.onIdle = resolve));
        await session.server.close().catch(() => undefined);
      }),
    );
  }

  async #open(r: LegacySessionRequest): Promise<Response | undefined> {
    if (this.#sessions.size >= this.#o.maxSessions) return undefined;
    const release = holdFor(r.held, r.principal);
    if (release instanceof HeldRequestsLimitError) return undefined;
    let session: Session | undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new BoundedEventStore(this.#o.replayEvents),
      onsessioninitialized: (id) => {
        if (session) this.#sessions.set(id, session);
      },
      onsessionclosed: (id) => {
        this.#end(id);
      },
    });
    const push = new LegacyStatusPushTransport(transport, { store: r.store, principal: r.principal });
    let response: Response;
    let server: McpServer | undefined;
    try {
      server = await this.#o.factory({ era: 'legacy', authInfo: r.authInfo, requestInfo: r.request });
      session = { principal: r.principal, transport, push, server, lastSeen: Date.now(), open: 0, release };
      await server.connect(push);
      response = await this.#serve(session, r);
    } finally {
      // An initialize that failed (or threw) opened nothing, and holds nothing.
      if (!transport.sessionId || !this.#sessions.has(transport.sessionId)) {
        release();
        await server?.close().catch(() => undefined);
      }
    }
    return response;
  }

  /** Forgets session `id`, giving back what its principal held for it. */
  #end(id: string): Session | undefined {
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    this.#sessions.delete(id);
    session.release();
    return session;
  }

  async #serve(session: Session, r: LegacySessionRequest): Promise<Response> {
    session.lastSeen = Date.now();
    session.open++;
    void r.done.finally(() => {
      session.open--;
      session.lastSeen = Date.now();
      if (session.open === 0) session.onIdle?.();
    });
    const response = await session.transport.handleRequest(r.request, {
      authInfo: r.authInfo,
      ...(r.parsedBody !== undefined ? { parsedBody: r.parsedBody } : {}),
    });
    // Its messages are being handled now (the transport hands them on before it answers).
    const hungUp = () => void this.#cancel(session, waitIds(r.parsedBody));
    if (r.request.signal.aborted) hungUp();
    else r.request.signal.addEventListener('abort', hungUp, { once: true });
    return response;
  }

  /**
   * The waits `ids` of a session whose client hung up before their answers: each handler hears it
   * as a cancellation (its signal aborts, so a tasks/result wait ends and gives back its held
   * request), as though the client had sent notifications/cancelled. The session's server then
   * sends no answer; the transport is given one instead — an error saying so, kept for a client that
   * resumes the request's stream (Last-Event-ID) — as only an answer makes it forget the request.
   */
  async #cancel(session: Session, ids: (string | number)[]): Promise<void> {
    for (const id of ids) {
      session.push.onmessage?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: id, reason: HUNG_UP },
      });
      // Answered meanwhile (the transport forgot it), or the session ended: nothing to forget.
      await session.transport
        .send({ jsonrpc: '2.0', id, error: { code: ProtocolErrorCode.InternalError, message: HUNG_UP } })
        .catch(() => undefined);
    }
  }

  #sweep(): void {
    const now = Date.now();
    for (const [id, session] of this.#sessions) {
      if (session.open > 0 || now - session.lastSeen < this.#o.idleMs) continue;
      this.#end(id);
      void session.server.close().catch(() => undefined);
    }
  }
}

const HUNG_UP = 'Wait ended: the client closed the connection before the answer; ask again (tasks/result)';

/**
 * The ids of the `tasks/result` waits in a POST's body (one message, or a batch). Only a wait ends
 * when its client hangs up: asking again costs nothing, while it held one of the principal's held
 * requests. Anything else goes on, as the 2025-11-25 transport says a disconnection SHOULD NOT be
 * taken as a cancel: its answer stays on the stream, for a client that resumes it (Last-Event-ID).
 */
function waitIds(body: unknown): (string | number)[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((m) =>
    m !== null && typeof m === 'object' && m.method === 'tasks/result' && ['string', 'number'].includes(typeof m.id)
      ? [m.id as string | number]
      : [],
  );
}
