// subscriptions/listen naming tasks over stdio (SEP-2663 defines the listen pattern for stdio too):
// a transport in front of the SDK's, serving such a listen itself (the SDK's stdio listen router
// knows only the list_changed and resource filters) and passing every other message through. The
// messages are those of the HTTP stream (task-subscription.ts), written to stdout in order.
import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  PROTOCOL_VERSION_META_KEY,
  type JSONRPCMessage,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import type { ServerInfo } from './direct-request.ts';
import { isPlainObject, readTaskListen, TaskSubscription, type TaskFollower } from './task-subscription.ts';

export interface StdioTaskListenOptions {
  serverInfo: ServerInfo;
  /** The tasks the connection's principal can see. */
  store: TaskFollower;
  /** Who is on the other end of the pipe (stdio has one principal: the local one). */
  principal: string;
  /** Open task listens on this connection at most; more are refused with -32603. */
  maxSubscriptions?: number;
}

export class StdioTaskListenTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  readonly #inner: Transport;
  readonly #o: StdioTaskListenOptions;
  readonly #open = new Map<string | number, TaskSubscription>();

  constructor(inner: Transport, options: StdioTaskListenOptions) {
    this.#inner = inner;
    this.#o = options;
  }

  get openCount(): number {
    return this.#open.size;
  }

  async start(): Promise<void> {
    this.#inner.onmessage = (message, extra) => {
      if (!this.#intercept(message)) this.onmessage?.(message, extra);
    };
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onclose = () => {
      // The host hung up: nothing can be written any more.
      for (const subscription of [...this.#open.values()]) subscription.end(false);
      this.onclose?.();
    };
    await this.#inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#inner.send(message, options);
  }

  /** Ends every open task listen with its result (the server is stopping), then the transport. */
  async close(): Promise<void> {
    for (const subscription of [...this.#open.values()]) subscription.end(true);
    await this.#inner.close();
  }

  /** True when the message was a task listen (or the cancel of one) and was served here. */
  #intercept(message: JSONRPCMessage): boolean {
    if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      const subscription = this.#open.get(message.params?.requestId as string | number);
      subscription?.end(false);
      return subscription !== undefined;
    }
    if (!isJSONRPCRequest(message) || message.method !== 'subscriptions/listen') return false;
    const params = message.params;
    // Only a 2026-07-28 request naming tasks; anything else (another filter, no envelope) is the SDK's to answer.
    if (!isPlainObject(params) || !isPlainObject(params.notifications) || !('taskIds' in params.notifications))
      return false;
    if (!isPlainObject(params._meta) || typeof params._meta[PROTOCOL_VERSION_META_KEY] !== 'string') return false;
    const { id } = message;
    const asked = readTaskListen(params);
    if ('error' in asked) {
      this.#write({ jsonrpc: '2.0', id, error: asked.error });
      return true;
    }
    if (this.#open.size >= (this.#o.maxSubscriptions ?? 1_024) || this.#open.has(id)) {
      this.#write({ jsonrpc: '2.0', id, error: { code: -32603, message: 'Subscription limit reached' } });
      return true;
    }
    const subscription = new TaskSubscription(id, this.#o.serverInfo);
    this.#open.set(id, subscription);
    subscription.onEnd = () => this.#open.delete(id);
    subscription.follow(asked.taskIds, this.#o.principal, this.#o.store).then(
      () => subscription.start({ send: (m) => this.#write({ jsonrpc: '2.0', ...m } as JSONRPCMessage), end: () => {} }),
      (error: unknown) => {
        this.#write({
          jsonrpc: '2.0',
          id,
          error: { code: -32603, message: `Could not read the tasks: ${(error as Error).message}` },
        });
      },
    );
    return true;
  }

  #write(message: JSONRPCMessage): void {
    this.#inner.send(message).catch((error: unknown) => this.onerror?.(error as Error));
  }
}
