// One subscriptions/listen naming tasks (SEP-2663), whatever carries it: the acknowledgement with
// the ids this principal may follow, then a notifications/tasks for each task as tasks/get shows it
// now and at every change, the terminal one last, then (when it ends gracefully) the listen's own
// result. The HTTP stream (task-listen.ts) and stdio (task-listen-stdio.ts) only frame the messages.
import { SERVER_INFO_META_KEY, SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server';
import type { ServerInfo } from './direct-request.ts';
import { PushThrottle } from './push-throttle.ts';
import type { TaskView } from './task-store.ts';
import { declaresTasks, getTaskResult, TASKS_EXTENSION_ID } from './wire.ts';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
export const isTerminalStatus = (status: string) => TERMINAL.has(status);
export const isTerminalTask = (task: TaskView) => isTerminalStatus(task.status);

/** What serving a listen needs from the task store: follow one task the principal can see. */
export interface TaskFollower {
  /**
   * Resolves with the task as it stands and the stop function, or undefined (and follows nothing)
   * when the principal cannot see such a task. Then calls `onChange` with the task each time its
   * status, statusMessage or pending input changes from what it last showed, in the order read (the
   * first change after the task resolved with), the last time when it ends (undefined: it expired).
   * A change may be told before the watch resolves.
   */
  watch(
    taskId: string,
    principal: string,
    onChange: (task: TaskView | undefined) => void,
  ): Promise<{ task: TaskView; stop: () => void } | undefined>;
}

/** Where a subscription's messages go (JSON-RPC objects without `jsonrpc`), and how its carrier ends. */
export interface SubscriptionSink {
  send(message: Record<string, unknown>): void;
  /** The carrier ends (the HTTP stream closes); nothing is sent after. */
  end(): void;
}

const MAX_TASK_IDS = 100;
const MAX_TASK_ID_LENGTH = 200;

export interface ListenRefusal {
  error: { code: number; message: string; data?: unknown };
}

/**
 * The task ids a listen asks to follow (deduplicated), or why it is refused: the Tasks extension
 * not declared on the request (-32021), or `notifications.taskIds` not a short list of ids (-32602).
 */
export function readTaskListen(params: Record<string, unknown>): { taskIds: string[] } | ListenRefusal {
  const meta = isPlainObject(params._meta) ? params._meta : undefined;
  if (!declaresTasks(meta))
    return {
      error: {
        code: -32021,
        message: 'Task status notifications need the Tasks extension declared on the request',
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
      },
    };
  const taskIds = isPlainObject(params.notifications) ? params.notifications.taskIds : undefined;
  if (
    !Array.isArray(taskIds) ||
    taskIds.length > MAX_TASK_IDS ||
    !taskIds.every((t) => typeof t === 'string' && t.length > 0 && t.length <= MAX_TASK_ID_LENGTH)
  )
    return {
      error: {
        code: -32602,
        message: `Invalid params: notifications.taskIds must be a list of at most ${MAX_TASK_IDS} task ids`,
      },
    };
  return { taskIds: [...new Set(taskIds as string[])] };
}

/**
 * One task's pushes are spaced as its progress writes are (the engine writes progress at most every
 * 250 ms), and never closer than the poll interval the task shows when that is shorter: at most four
 * a second per task, each a statusMessage that was written, never a burst.
 */
export const PUSH_SPACING_MS = 250;

export class TaskSubscription {
  readonly #id: string | number;
  readonly #serverInfo: ServerInfo;
  readonly #stops: (() => void)[] = [];
  readonly #throttles = new Map<string, PushThrottle<TaskView>>();
  #sink?: SubscriptionSink;
  #ended = false;
  #started = false;
  // Where each task stands before the subscription starts: what its watch opened with, or a change
  // told since (always the fresher).
  readonly #latest = new Map<string, TaskView>();
  // Once none of the followed tasks is left to change (ended or gone) and one of them is gone
  // (expired before it ended: an ended task is no longer watched), the subscription ends, so no
  // client waits on nothing: checked whichever way the last one leaves, by ending or by going.
  readonly #live = new Set<string>();
  readonly #gone = new Set<string>();
  #honoured: string[] = [];
  /** Told once when the subscription ends, however it ends. */
  onEnd?: () => void;

  constructor(id: string | number, serverInfo: ServerInfo) {
    this.#id = id;
    this.#serverInfo = serverInfo;
  }

  get ended(): boolean {
    return this.#ended;
  }

  get honoured(): readonly string[] {
    return this.#honoured;
  }

  /**
   * Follows each requested task the principal can see, opening with where its watch found it; a
   * task the principal cannot see (another's, unknown, expired) is left out of the acknowledgement.
   * A read that fails part way ends the subscription (the tasks already followed stop being
   * watched) and rejects.
   */
  async follow(requested: readonly string[], principal: string, store: TaskFollower): Promise<void> {
    try {
      await this.#followEach(requested, principal, store);
    } catch (error) {
      this.end(false);
      throw error;
    }
  }

  async #followEach(requested: readonly string[], principal: string, store: TaskFollower): Promise<void> {
    for (const taskId of requested) {
      const followed = await store.watch(taskId, principal, (task) => this.#changed(taskId, task));
      if (!followed) continue;
      if (this.#ended) return followed.stop();
      this.#stops.push(followed.stop);
      this.#honoured.push(taskId);
      // A change told while the watch resolved is fresher than what it opened with.
      if (!this.#gone.has(taskId) && !this.#latest.has(taskId)) this.#latest.set(taskId, followed.task);
      const now = this.#latest.get(taskId);
      if (now && !isTerminalTask(now)) this.#live.add(taskId);
    }
  }

  /**
   * Sends the acknowledgement and where each task stands, then every change as it is written.
   * Ends at once when nothing was honoured, or when `stopping` (the server closes meanwhile).
   */
  start(sink: SubscriptionSink, stopping = false): void {
    this.#sink = sink;
    this.#send({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: this.#honoured }, _meta: this.#meta() },
    });
    if (this.#honoured.length === 0) return this.end(true);
    for (const taskId of this.#honoured) {
      const seen = this.#latest.get(taskId);
      if (seen) this.#notify(seen);
    }
    this.#started = true;
    if (stopping || this.#nothingLeft()) this.end(true);
  }

  /** Ends it: gracefully with the listen's own result (the server stops, or nothing is left to follow). */
  end(graceful: boolean): void {
    if (this.#ended) return;
    if (graceful && this.#sink)
      this.#send({
        id: this.#id,
        result: {
          resultType: 'complete',
          _meta: { ...this.#meta(), [SERVER_INFO_META_KEY]: this.#serverInfo },
        },
      });
    this.#ended = true;
    for (const stop of this.#stops) stop();
    for (const throttle of this.#throttles.values()) throttle.stop();
    this.#sink?.end();
    this.onEnd?.();
  }

  #changed(taskId: string, task: TaskView | undefined): void {
    if (!task) {
      // Gone (expired) is told as the stream ending, never as a status: nothing more is pushed for
      // it, not even where it stood when read before it went.
      this.#live.delete(taskId);
      this.#gone.add(taskId);
      this.#latest.delete(taskId);
      this.#throttles.get(taskId)?.stop();
    } else {
      if (isTerminalTask(task)) this.#live.delete(taskId);
      if (this.#started) this.#notify(task);
      else this.#latest.set(taskId, task);
    }
    // Whichever way the last followed task leaves (ending after another went, or going after the
    // others ended), the stream ends after its last notification.
    if (this.#started && this.#nothingLeft()) this.end(true);
  }

  /** Every followed task has ended or gone, and one of them is gone. */
  #nothingLeft(): boolean {
    return this.#live.size === 0 && this.#gone.size > 0;
  }

  #notify(task: TaskView): void {
    let throttle = this.#throttles.get(task.taskId);
    if (!throttle) {
      throttle = new PushThrottle<TaskView>(
        (t) => this.#send({ method: 'notifications/tasks', params: { ...notificationParams(t), _meta: this.#meta() } }),
        (t) => Math.min(PUSH_SPACING_MS, t.pollIntervalMs ?? PUSH_SPACING_MS),
        isTerminalTask,
      );
      this.#throttles.set(task.taskId, throttle);
    }
    throttle.offer(task);
  }

  #send(message: Record<string, unknown>): void {
    if (!this.#ended) this.#sink?.send(message);
  }

  #meta() {
    return { [SUBSCRIPTION_ID_META_KEY]: this.#id };
  }
}

/** A notification carries the task exactly as tasks/get shows it (less the result discriminator). */
function notificationParams(task: TaskView) {
  const { resultType: _, ...params } = getTaskResult(task);
  return params;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
