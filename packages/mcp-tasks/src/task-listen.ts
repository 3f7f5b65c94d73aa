// Task Status Notifications (SEP-2663): a client that declared the extension sends
// subscriptions/listen with `notifications.taskIds` and keeps the answer open; it gets
// notifications/tasks carrying each task as tasks/get would show it, every time the task's status
// or statusMessage is written, the terminal one last. The SDK's own listen router honours only the
// list_changed and resource filters, so a listen naming tasks is served here, over a TaskStore.
import { classifyInboundRequest, isJsonContentType } from '@modelcontextprotocol/server';
import { HeldRequestsLimitError, holdFor, type HeldRequests } from './held-requests.ts';
import type { ServerInfo } from './direct-request.ts';
import { isPlainObject, readTaskListen, TaskSubscription, type TaskFollower } from './task-subscription.ts';

const KEEP_ALIVE_MS = 15_000;

export type { TaskFollower };

export interface TaskListenRequest {
  /** The parsed JSON body. */
  body: unknown;
  headers: { contentType?: string; accept?: string; protocolVersion?: string; method?: string };
  principal: string;
  /** The tasks this principal can see. */
  store: TaskFollower;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /** The principal's cap on what it holds open: a stream is one, while it lasts. None: not limited. */
  held?: HeldRequests;
}

export interface TaskListenOptions {
  serverInfo: ServerInfo;
  /** Open listen streams at most (per process); more are refused with -32603. */
  maxStreams?: number;
  keepAliveMs?: number;
}

/**
 * Serves subscriptions/listen requests that name tasks. `answer` returns a web Response for a
 * listen with `notifications.taskIds`, and undefined for anything else (the SDK's to answer).
 * `close` ends every open stream gracefully (the server is stopping), and any still being set up.
 */
export class TaskListenRouter {
  readonly #open = new Set<(graceful: boolean) => void>();
  readonly #o: Required<TaskListenOptions>;
  /** Set by close(): a stream still being set up then (its reads under way) ends as soon as it opens. */
  #closed = false;

  constructor(options: TaskListenOptions) {
    this.#o = { maxStreams: 1_000, keepAliveMs: KEEP_ALIVE_MS, ...options };
  }

  get openCount(): number {
    return this.#open.size;
  }

  close(): void {
    this.#closed = true;
    for (const teardown of [...this.#open]) teardown(true);
  }

  async answer(request: TaskListenRequest): Promise<Response | undefined> {
    const { body, headers } = request;
    if (headers.method?.trim() !== 'subscriptions/listen' || !isJsonContentType(headers.contentType ?? null))
      return undefined;
    if (!isPlainObject(body) || body.method !== 'subscriptions/listen' || !isPlainObject(body.params)) return undefined;
    const notifications = body.params.notifications;
    if (!isPlainObject(notifications) || !('taskIds' in notifications)) return undefined;
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: headers.protocolVersion,
      mcpMethodHeader: headers.method,
      body,
    });
    // Anything the SDK would refuse or route elsewhere (another era, a header mismatch) stays its to answer.
    if (route.kind !== 'modern' || route.messageKind !== 'request') return undefined;
    const id = body.id as string | number;
    const asked = readTaskListen(body.params);
    if ('error' in asked) return jsonRpcError(400, id, asked.error.code, asked.error.message, asked.error.data);
    if (this.#open.size >= this.#o.maxStreams) return jsonRpcError(200, id, -32603, 'Subscription limit reached');
    const release = holdFor(request.held, request.principal);
    if (release instanceof HeldRequestsLimitError) return jsonRpcError(200, id, -32603, release.message, release.data);
    try {
      return await this.#stream(id, asked.taskIds, request, release);
    } catch (error) {
      release();
      throw error;
    }
  }

  async #stream(
    id: string | number,
    requested: string[],
    request: TaskListenRequest,
    release: () => void,
  ): Promise<Response> {
    const { principal, signal, store } = request;
    const encoder = new TextEncoder();
    const subscription = new TaskSubscription(id, this.#o.serverInfo);
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let keepAlive: NodeJS.Timeout | undefined;
    const teardown = (graceful: boolean) => subscription.end(graceful);
    const write = (frame: string) => {
      try {
        controller.enqueue(encoder.encode(frame));
      } catch {
        teardown(false);
      }
    };
    const onAbort = () => teardown(false);
    subscription.onEnd = () => {
      release();
      clearInterval(keepAlive);
      signal.removeEventListener('abort', onAbort);
      this.#open.delete(teardown);
    };
    await subscription.follow(requested, principal, store);

    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
        this.#open.add(teardown);
        // Stopping while this stream was read: it says where each task stands and ends, or the
        // server would wait on a stream close() never saw (and its client would wait on the server).
        subscription.start(
          {
            send: (message) => write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...message })}\n\n`),
            end: () => {
              try {
                controller.close();
              } catch {
                // already closed by the reader
              }
            },
          },
          this.#closed,
        );
        if (subscription.ended) return;
        keepAlive = setInterval(() => write(': keepalive\n\n'), this.#o.keepAliveMs);
        keepAlive.unref();
      },
      cancel: () => teardown(false),
    });
    if (signal.aborted) teardown(false);
    else signal.addEventListener('abort', onAbort, { once: true });
    return new Response(body, {
      status: 200,
      headers: {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache, no-transform',
        // The socket ends with the stream: a listen lasts until one side stops, and a server that
        // is stopping should not then wait for the client's keep-alive to lapse.
        connection: 'close',
        'x-accel-buffering': 'no',
      },
    });
  }
}

function jsonRpcError(status: number, id: unknown, code: number, message: string, data?: unknown): Response {
  return Response.json(
    { jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data ? { data } : {}) } },
    { status },
  );
}
