// What the CLI's MCP clients share, whatever carries their messages (Streamable HTTP in
// mcp-http-client.ts, a child `reflow mcp` over stdio in mcp-stdio-client.ts): the 2026-07-28
// envelope every request carries in _meta, the errors, and the two things the commands ask of a
// client: a request, and a listen for task status notifications.

export const PROTOCOL_VERSION = '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId';

export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** A server the client started (over stdio) is gone: what it last logged says why. */
export class ServerExitedError extends Error {}

/** Which way a message went, for a transcript. */
export type Direction = 'sent' | 'received';

export interface McpClientOptions {
  /** Declare the Tasks extension on every request. */
  tasks?: boolean;
  /** Declare elicitation: this client can answer a task's questions (reflow call --confirm asks on the terminal). */
  elicitation?: boolean;
  /** Wait for tasks by listening for their status notifications when the server offers them (default); false polls only. */
  listen?: boolean;
  clientInfo?: { name: string; version: string };
  /** Told of every JSON-RPC message as it is sent or read (`--debug` prints them). */
  onMessage?(direction: Direction, message: unknown): void;
}

/** A listen the server acknowledged: the task ids it agreed to, and when the stream ends. */
export interface TaskListen {
  taskIds: string[];
  /** Settles when the listen ends: the server ended it, the carrier dropped, or `signal` stopped it. */
  ended: Promise<void>;
}

export interface McpClient {
  readonly options: McpClientOptions;
  request<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>): Promise<T>;
  /**
   * subscriptions/listen for task status notifications (Tasks extension): resolves once the server
   * acknowledged, and calls `onTask` with each notifications/tasks task.
   */
  listenTasks(
    taskIds: string[],
    onTask: (task: Record<string, unknown>) => void,
    signal: AbortSignal,
  ): Promise<TaskListen>;
  /** Lets go of the connection (and of a server this client started). */
  close(): Promise<void>;
}

/** The _meta every request carries on the 2026-07-28 wire: protocol version, capabilities, who is asking. */
export function requestMeta(options: McpClientOptions): Record<string, unknown> {
  const capabilities = {
    ...(options.elicitation ? { elicitation: {} } : {}),
    ...(options.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
  };
  return {
    'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': options.clientInfo ?? { name: 'reflow-cli', version: '0.1.0' },
  };
}

/** A JSON-RPC error answer as the McpError it means. */
export const errorOf = (error: { code: number; message: string; data?: unknown }) =>
  new McpError(error.code, error.message, error.data);
