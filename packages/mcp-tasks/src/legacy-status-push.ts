// The 2025-11-25 push: `notifications/tasks/status`, sent unsolicited on a connection that keeps
// state (a 2025 session's standalone GET stream; a 2025 stdio connection) for each task created on
// it. A transport in front of the SDK's: it sees each CreateTaskResult go out, then follows that
// task in the store (this process's writes at once, any other process's by the store's re-read)
// and sends the task as 2025-11-25 shows it at each change, the terminal one last.
import type { JSONRPCMessage, Transport, TransportSendOptions } from '@modelcontextprotocol/server';
import { legacyTask } from './legacy-wire.ts';
import { PushThrottle } from './push-throttle.ts';
import {
  isPlainObject,
  isTerminalStatus,
  isTerminalTask,
  PUSH_SPACING_MS,
  type TaskFollower,
} from './task-subscription.ts';
import type { TaskView } from './task-store.ts';

export interface LegacyStatusPushOptions {
  /** The tasks the connection's principal can see. */
  store: TaskFollower;
  principal: string;
}

export class LegacyStatusPushTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  readonly #inner: Transport;
  readonly #o: LegacyStatusPushOptions;
  readonly #followed = new Map<string, { stop?: () => void; throttle: PushThrottle<TaskView> }>();
  #closed = false;

  constructor(inner: Transport, options: LegacyStatusPushOptions) {
    this.#inner = inner;
    this.#o = options;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  /** How many tasks are being followed for this connection. */
  get followedCount(): number {
    return this.#followed.size;
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  async start(): Promise<void> {
    this.#inner.onmessage = (message, extra) => this.onmessage?.(message, extra);
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onclose = () => {
      this.#stopAll();
      this.onclose?.();
    };
    await this.#inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    await this.#inner.send(message, options);
    const task = createdTask(message);
    if (task && !isTerminalStatus(task.status)) this.#follow(task);
  }

  async close(): Promise<void> {
    this.#stopAll();
    await this.#inner.close();
  }

  #follow(created: CreatedTask): void {
    const { taskId } = created;
    if (this.#closed || this.#followed.has(taskId)) return;
    const throttle = new PushThrottle<TaskView>(
      (task) =>
        void this.#inner
          .send({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: legacyTask(task) })
          .catch((error: unknown) => this.onerror?.(error as Error)),
      (task) => Math.min(PUSH_SPACING_MS, task.pollIntervalMs ?? PUSH_SPACING_MS),
      isTerminalTask,
    );
    const entry: { stop?: () => void; throttle: PushThrottle<TaskView> } = { throttle };
    this.#followed.set(taskId, entry);
    const forget = () => {
      entry.stop?.();
      throttle.stop();
      this.#followed.delete(taskId);
    };
    // Whether the watch told a change yet: what it then opened with is old news.
    let told = false;
    this.#o.store
      .watch(taskId, this.#o.principal, (task) => {
        told = true;
        // Expired (undefined): nothing more to show.
        if (!task) return forget();
        throttle.offer(task);
        if (isTerminalTask(task)) forget();
      })
      .then(
        (followed) => {
          if (!followed || this.#closed || !this.#followed.has(taskId)) return followed?.stop();
          entry.stop = followed.stop;
          // A change between the create's answer and the watch's first read is not news to the
          // watch: what the task shows then goes out unless the create already said it.
          const now = followed.task;
          if (!told && (now.status !== created.status || now.statusMessage !== created.statusMessage))
            throttle.offer(now);
          if (isTerminalTask(now)) forget();
        },
        () => forget(),
      );
  }

  #stopAll(): void {
    this.#closed = true;
    for (const { stop, throttle } of this.#followed.values()) {
      stop?.();
      throttle.stop();
    }
    this.#followed.clear();
  }
}

interface CreatedTask {
  taskId: string;
  status: string;
  statusMessage?: string;
}

/** The task of a 2025-11-25 CreateTaskResult (`result.task`), if the message is one. */
function createdTask(message: JSONRPCMessage): CreatedTask | undefined {
  const result = (message as { result?: unknown }).result;
  if (!isPlainObject(result) || !isPlainObject(result.task)) return undefined;
  const { taskId, status, statusMessage } = result.task;
  if (typeof taskId !== 'string' || typeof status !== 'string') return undefined;
  return { taskId, status, ...(typeof statusMessage === 'string' ? { statusMessage } : {}) };
}
