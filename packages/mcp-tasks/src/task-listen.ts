// Task Status Notifications (SEP-2663): a client that declared the extension sends
// subscriptions/listen with `notifications.taskIds` and keeps the answer open; it gets
// notifications/tasks carrying each task as tasks/get would show it, every time the task's status
// or statusMessage is written, the terminal one last. The SDK's own listen router honours only the
// list_changed and resource filters, so a listen naming tasks is served here, over a TaskStore.
import {
  classifyInboundRequest,
  isJsonContentType,
  SERVER_INFO_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
} from '@modelcontextprotocol/server';
import type { TaskView } from './task-store.ts';
import type { ServerInfo } from './direct-request.ts';
import { declaresTasks, getTaskResult, TASKS_EXTENSION_ID } from './wire.ts';

const MAX_TASK_IDS = 100;
const MAX_TASK_ID_LENGTH = 200;
const KEEP_ALIVE_MS = 15_000;
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** What serving a listen needs from the task store: follow one task the principal can see. */
export interface TaskFollower {
  /**
   * Calls `onChange` with the task each time its status, statusMessage or pending input changes,
   * the last time when it ends (undefined: it expired). Resolves with the stop function, or undefined
   * (and follows nothing) when the principal cannot see such a task.
   */
  watch(
    taskId: string,
    principal: string,
    onChange: (task: TaskView | undefined) => void,
  ): Promise<(() => void) | undefined>;
  get(taskId: string, principal: string): TaskView | undefined | Promise<TaskView | undefined>;
}

export interface TaskListenRequest {
  /** The parsed JSON body. */
  body: unknown;
  headers: { contentType?: string; accept?: string; protocolVersion?: string; method?: string };
  principal: string;
  /** The tasks this principal can see. */
  store: TaskFollower;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
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
    const meta = isPlainObject(body.params._meta) ? body.params._meta : undefined;
    if (!declaresTasks(meta))
      return jsonRpcError(
        400,
        id,
        -32021,
        'Task status notifications need the Tasks extension declared on the request',
        {
          requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } },
        },
      );
    const taskIds = notifications.taskIds;
    if (
      !Array.isArray(taskIds) ||
      taskIds.length > MAX_TASK_IDS ||
      !taskIds.every((t) => typeof t === 'string' && t.length > 0 && t.length <= MAX_TASK_ID_LENGTH)
    )
      return jsonRpcError(
        400,
        id,
        -32602,
        `Invalid params: notifications.taskIds must be a list of at most ${MAX_TASK_IDS} task ids`,
      );
    if (this.#open.size >= this.#o.maxStreams) return jsonRpcError(200, id, -32603, 'Subscription limit reached');
    return this.#stream(id, [...new Set(taskIds as string[])], request);
  }

  async #stream(id: string | number, requested: string[], request: TaskListenRequest): Promise<Response> {
    const { principal, signal, store } = request;
    const encoder = new TextEncoder();
    const subscriptionMeta = { [SUBSCRIPTION_ID_META_KEY]: id };
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let closed = false;
    const stops: (() => void)[] = [];
    let keepAlive: NodeJS.Timeout | undefined;

    const write = (frame: string) => {
      if (closed) return;
      try {
        controller.enqueue(encoder.encode(frame));
      } catch {
        teardown(false);
      }
    };
    const send = (message: Record<string, unknown>) =>
      write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...message })}\n\n`);
    const notify = (task: TaskView) =>
      send({ method: 'notifications/tasks', params: { ...notificationParams(task), _meta: subscriptionMeta } });
    const teardown = (graceful: boolean) => {
      if (closed) return;
      if (graceful)
        send({
          id,
          result: {
            resultType: 'complete',
            _meta: { ...subscriptionMeta, [SERVER_INFO_META_KEY]: this.#o.serverInfo },
          },
        });
      closed = true;
      for (const stop of stops) stop();
      clearInterval(keepAlive);
      signal.removeEventListener('abort', onAbort);
      this.#open.delete(teardown);
      try {
        controller.close();
      } catch {
        // already closed by the reader
      }
    };
    const onAbort = () => teardown(false);

    // Each task is followed before its current state is read, so no change falls between the two;
    // a task the principal cannot see (another's, unknown, expired) is left out of the acknowledgement.
    // Reads are numbered so the freshest of a task's reads is what the stream opens with.
    let reads = 0;
    const latest = new Map<string, { task: TaskView; read: number }>();
    const keep = (task: TaskView | undefined, read = ++reads) => {
      if (task && (latest.get(task.taskId)?.read ?? -1) < read) latest.set(task.taskId, { task, read });
    };
    let started = false;
    const honoured: string[] = [];
    // A task that expires cannot be shown any more; once none of the followed tasks is left to
    // change (ended or gone) and one of them is gone, the stream ends, so no client waits on nothing.
    const live = new Set<string>();
    const forget = (taskId: string, gone: boolean) => {
      live.delete(taskId);
      if (gone && started && live.size === 0) teardown(true);
    };
    for (const taskId of requested) {
      const stop = await store.watch(taskId, principal, (task) => {
        if (!task) return forget(taskId, true);
        if (TERMINAL.has(task.status)) forget(taskId, false);
        if (started) notify(task);
        else keep(task);
      });
      if (!stop) continue;
      stops.push(stop);
      honoured.push(taskId);
      live.add(taskId);
    }
    for (const taskId of honoured) {
      // Numbered when asked: a change heard while this read is under way is the fresher one.
      const read = ++reads;
      const task = await store.get(taskId, principal);
      if (!task) live.delete(taskId);
      else if (TERMINAL.has(task.status)) live.delete(taskId);
      keep(task, read);
    }
    const anyGone = honoured.some((taskId) => !latest.has(taskId));

    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
        send({
          method: 'notifications/subscriptions/acknowledged',
          params: { notifications: { taskIds: honoured }, _meta: subscriptionMeta },
        });
        if (honoured.length === 0) return teardown(true);
        // Where each task stands now, then every change as it is written.
        for (const taskId of honoured) {
          const seen = latest.get(taskId);
          if (seen) notify(seen.task);
        }
        started = true;
        // Stopping while this stream was read: it says where each task stands and ends, or the
        // server would wait on a stream close() never saw (and its client would wait on the server).
        if (this.#closed || (anyGone && live.size === 0)) return teardown(true);
        keepAlive = setInterval(() => write(': keepalive\n\n'), this.#o.keepAliveMs);
        keepAlive.unref();
        this.#open.add(teardown);
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

/** A notification carries the task exactly as tasks/get shows it (less the result discriminator). */
function notificationParams(task: TaskView) {
  const { resultType: _, ...params } = getTaskResult(task);
  return params;
}

function jsonRpcError(status: number, id: unknown, code: number, message: string, data?: unknown): Response {
  return Response.json(
    { jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data ? { data } : {}) } },
    { status },
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
