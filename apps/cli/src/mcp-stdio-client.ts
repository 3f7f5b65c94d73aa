// The CLI's MCP client over stdio: it starts an MCP server as a child process through the official
// SDK's StdioClientTransport and speaks the same 2026-07-28 requests as over HTTP (the envelope in
// _meta, no initialize). Responses are matched by id; a subscriptions/listen is one request whose
// acknowledgement and notifications/tasks carry its id as their subscription id, and whose own
// response ends it (SEP-2663's listen pattern on stdio).
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  errorOf,
  McpError,
  requestMeta,
  ServerExitedError,
  SUBSCRIPTION_ID_META_KEY,
  type McpClient,
  type McpClientOptions,
  type TaskListen,
} from './mcp-client.ts';

export interface StdioServerParameters {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface McpStdioClientOptions extends McpClientOptions {
  /** Told of what the server writes on its stderr (its log), as it comes. */
  onServerLog?(text: string): void;
}

type JsonRpc = {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

interface OpenListen {
  /** A notification carrying this listen's subscription id. */
  notified(message: JsonRpc): void;
  /** The listen's own response, or the connection went. */
  finished(error?: Error): void;
}

const LOG_TAIL_CHARS = 64_000;

export class McpStdioClient implements McpClient {
  readonly #transport: StdioClientTransport;
  readonly #pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  readonly #listens = new Map<number, OpenListen>();
  #nextId = 1;
  #logTail = '';
  #lost?: Error;

  private constructor(
    readonly options: McpStdioClientOptions,
    transport: StdioClientTransport,
  ) {
    this.#transport = transport;
  }

  /** Starts the server process and connects to it. */
  static async start(server: StdioServerParameters, options: McpStdioClientOptions): Promise<McpStdioClient> {
    const transport = new StdioClientTransport({ ...server, stderr: 'pipe' });
    const client = new McpStdioClient(options, transport);
    // Read as it comes: a server whose stderr pipe fills up would block on its next log line.
    transport.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      client.#logTail = (client.#logTail + text).slice(-LOG_TAIL_CHARS);
      options.onServerLog?.(text);
    });
    transport.onmessage = (message) => client.#receive(message);
    transport.onclose = () => client.#connectionLost();
    await transport.start();
    return client;
  }

  /** The server process's id (for a transcript: a host may want to know what it started). */
  get serverPid(): number | null {
    return this.#transport.pid;
  }

  async request<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.#nextId++;
    const answered = new Promise<unknown>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    await this.#send(id, method, params).catch((error: unknown) => this.#settle(id, undefined, error as Error));
    return (await answered) as T;
  }

  async listenTasks(
    taskIds: string[],
    onTask: (task: Record<string, unknown>) => void,
    signal: AbortSignal,
  ): Promise<TaskListen> {
    const id = this.#nextId++;
    let acknowledged!: (taskIds: string[]) => void;
    let refused!: (error: Error) => void;
    const ack = new Promise<string[]>((resolve, reject) => ((acknowledged = resolve), (refused = reject)));
    let ended!: () => void;
    const end = new Promise<void>((resolve) => (ended = resolve));
    let isAcknowledged = false;
    this.#listens.set(id, {
      notified: (message) => {
        if (message.method === 'notifications/subscriptions/acknowledged' && !isAcknowledged) {
          isAcknowledged = true;
          const notifications = message.params?.notifications as { taskIds?: unknown } | undefined;
          acknowledged(Array.isArray(notifications?.taskIds) ? (notifications.taskIds as string[]) : []);
        } else if (message.method === 'notifications/tasks' && message.params && isAcknowledged) onTask(message.params);
      },
      finished: (error) => {
        this.#listens.delete(id);
        signal.removeEventListener('abort', stop);
        if (!isAcknowledged) refused(error ?? new McpError(-32603, 'subscriptions/listen was not acknowledged'));
        ended();
      },
    });
    // Stopping a listen on stdio is cancelling its request; the server then ends it without a response.
    const stop = () => {
      const open = this.#listens.get(id);
      if (!open) return;
      // Best effort: a server that is gone has ended the listen anyway.
      if (!this.#lost)
        this.#write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } }).catch(() => {});
      open.finished(signal.reason instanceof Error ? signal.reason : new Error('stopped'));
    };
    if (signal.aborted) throw signal.reason;
    signal.addEventListener('abort', stop, { once: true });
    await this.#send(id, 'subscriptions/listen', { notifications: { taskIds } }).catch((error: unknown) =>
      this.#listens.get(id)?.finished(error as Error),
    );
    return { taskIds: await ack, ended: end };
  }

  /** Closes the server's stdin, which stops it (it hands running work back first); the SDK ends it if it lingers. */
  async close(): Promise<void> {
    this.#connectionLost(new Error('the client closed the connection'));
    await this.#transport.close();
  }

  async #send(id: number, method: string, params: Record<string, unknown>): Promise<void> {
    if (this.#lost) throw this.#lost;
    await this.#write({ jsonrpc: '2.0', id, method, params: { ...params, _meta: requestMeta(this.options) } });
  }

  #write(message: JsonRpc & { jsonrpc: '2.0' }): Promise<void> {
    this.options.onMessage?.('sent', message);
    return this.#transport.send(message as never);
  }

  #receive(message: JsonRpc): void {
    this.options.onMessage?.('received', message);
    if (message.method === undefined) {
      const id = Number(message.id);
      const listen = this.#listens.get(id);
      if (listen) return listen.finished(message.error ? errorOf(message.error) : undefined);
      return this.#settle(id, message.result, message.error ? errorOf(message.error) : undefined);
    }
    if (message.id !== undefined) {
      // A request from the server: this client serves none (it declares no such capability).
      this.#write({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }).catch(
        () => {},
      );
      return;
    }
    const meta = message.params?._meta as Record<string, unknown> | undefined;
    const subscription = meta?.[SUBSCRIPTION_ID_META_KEY];
    if (typeof subscription === 'number') this.#listens.get(subscription)?.notified(message);
  }

  #settle(id: number, result: unknown, error: Error | undefined): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    if (error) pending.reject(error);
    else pending.resolve(result);
  }

  #connectionLost(reason?: Error): void {
    if (this.#lost) return;
    this.#lost = reason ?? new ServerExitedError(`the stdio server exited${whyItExited(this.#logTail)}`);
    for (const id of [...this.#pending.keys()]) this.#settle(id, undefined, this.#lost);
    for (const listen of [...this.#listens.values()]) listen.finished(this.#lost);
  }
}

/** What the server's log says went wrong: its first error line (an uncaught error, a pino error or fatal), else its last lines. */
function whyItExited(log: string): string {
  const lines = log.trim().split('\n');
  if (lines.length === 1 && lines[0] === '') return '';
  const error = lines.find((line) => /^\w*Error\b|"level":(50|60)\b/.test(line));
  return error ? `: ${error}` : `; its last log lines:\n${lines.slice(-5).join('\n')}`;
}
