// A small MCP client for the 2026-07-28 Streamable HTTP wire: every request carries its protocol
// version and client capabilities in _meta, plus the MCP-Protocol-Version / Mcp-Method / Mcp-Name
// headers the transport requires. The demo uses it so the wire it prints is exactly what is sent.
import {
  errorOf,
  McpError,
  PROTOCOL_VERSION,
  requestMeta,
  type McpClient,
  type McpClientOptions,
  type TaskListen,
} from './mcp-client.ts';

export { McpError } from './mcp-client.ts';

/** The server answered with an HTTP error that carries no JSON-RPC error (auth, limits, a proxy). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`HTTP ${status}${body ? `: ${body}` : ''}`);
  }
}

export interface McpHttpClientOptions extends McpClientOptions {
  url: string;
  token?: string;
}

export class McpHttpClient implements McpClient {
  #nextId = 1;
  constructor(readonly options: McpHttpClientOptions) {}

  async request<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const message = await readMessage(await this.#post(method, params));
    this.options.onMessage?.('received', message);
    if (message.error) throw errorOf(message.error);
    return message.result as T;
  }

  /** Nothing to let go of: every request is its own HTTP exchange. */
  async close(): Promise<void> {}

  /** The listen is one POST whose answer is an SSE stream: the acknowledgement first, then the notifications. */
  async listenTasks(
    taskIds: string[],
    onTask: (task: Record<string, unknown>) => void,
    signal: AbortSignal,
  ): Promise<TaskListen> {
    const response = await this.#post('subscriptions/listen', { notifications: { taskIds } }, signal);
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      const message = await readMessage(response);
      this.options.onMessage?.('received', message);
      if (message.error) throw errorOf(message.error);
      throw new McpError(-32603, 'subscriptions/listen answered without a stream');
    }
    const frames = sseMessages(response.body!);
    const first = await frames.next();
    if (!first.done) this.options.onMessage?.('received', first.value);
    const ack = first.done ? undefined : (first.value as { method?: string; params?: any });
    if (ack?.method !== 'notifications/subscriptions/acknowledged')
      throw new McpError(-32603, 'subscriptions/listen was not acknowledged');
    const ended = (async () => {
      try {
        for await (const message of frames) {
          this.options.onMessage?.('received', message);
          const m = message as { method?: string; params?: Record<string, unknown> };
          if (m.method === 'notifications/tasks' && m.params) onTask(m.params);
        }
      } catch {
        // dropped or stopped: the caller learns it from `ended` settling
      }
    })();
    const acknowledged = ack.params?.notifications?.taskIds;
    return { taskIds: Array.isArray(acknowledged) ? acknowledged : [], ended };
  }

  #post(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
    const body = {
      jsonrpc: '2.0',
      id: this.#nextId++,
      method,
      params: { ...params, _meta: requestMeta(this.options) },
    };
    this.options.onMessage?.('sent', body);
    const name =
      typeof params.name === 'string' ? params.name : typeof params.taskId === 'string' ? params.taskId : undefined;
    return fetch(this.options.url, {
      method: 'POST',
      signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL_VERSION,
        'mcp-method': method,
        ...(name ? { 'mcp-name': name } : {}),
        ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}),
      },
      body: JSON.stringify(body),
    });
  }
}

/** The JSON-RPC messages of an SSE body, as they arrive. */
async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n/g, '\n');
    let cut;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const data = buffer
        .slice(0, cut)
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      buffer = buffer.slice(cut + 2);
      if (data) yield JSON.parse(data);
    }
  }
}

/** Reads the JSON-RPC response from a JSON body or, when the server streamed, from the SSE frames. */
async function readMessage(
  response: Response,
): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }> {
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    if (!text) throw new McpError(-32603, `HTTP ${response.status} with an empty body`);
    let parsed: { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new HttpError(response.status, text.slice(0, 200));
    }
    // A gateway or auth layer answers in plain HTTP (401, 413, 429…), not JSON-RPC.
    if (!response.ok && !parsed.error) throw new HttpError(response.status, text.slice(0, 200));
    return parsed;
  }
  const frames = text
    .split(/\r?\n\r?\n/)
    .map((f) =>
      f
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n'),
    )
    .filter(Boolean)
    .map(
      (d) =>
        JSON.parse(d) as { id?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } },
    );
  const reply = frames.find((f) => f.id !== undefined && (f.result !== undefined || f.error !== undefined));
  if (!reply) throw new McpError(-32603, 'The stream ended without a response');
  return reply;
}
