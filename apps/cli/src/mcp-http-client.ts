// A small MCP client for the 2026-07-28 Streamable HTTP wire: every request carries its protocol
// version and client capabilities in _meta, plus the MCP-Protocol-Version / Mcp-Method / Mcp-Name
// headers the transport requires. The demo uses it so the wire it prints is exactly what is sent.

export const PROTOCOL_VERSION = '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The server answered with an HTTP error that carries no JSON-RPC error (auth, limits, a proxy). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`HTTP ${status}${body ? `: ${body}` : ''}`);
  }
}

export interface McpHttpClientOptions {
  url: string;
  token?: string;
  /** Declare the Tasks extension on every request. */
  tasks?: boolean;
  /** Declare elicitation: this client can answer a task's questions (reflow call --confirm asks on the terminal). */
  elicitation?: boolean;
  clientInfo?: { name: string; version: string };
}

export class McpHttpClient {
  #nextId = 1;
  constructor(readonly options: McpHttpClientOptions) {}

  async request<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const capabilities = {
      ...(this.options.elicitation ? { elicitation: {} } : {}),
      ...(this.options.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
    };
    const body = {
      jsonrpc: '2.0',
      id: this.#nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
          'io.modelcontextprotocol/clientCapabilities': capabilities,
          'io.modelcontextprotocol/clientInfo': this.options.clientInfo ?? { name: 'reflow-cli', version: '0.1.0' },
        },
      },
    };
    const name =
      typeof params.name === 'string' ? params.name : typeof params.taskId === 'string' ? params.taskId : undefined;
    const response = await fetch(this.options.url, {
      method: 'POST',
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
    const message = await readMessage(response);
    if (message.error) throw new McpError(message.error.code, message.error.message, message.error.data);
    return message.result as T;
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
