// Builds a task session with the OFFICIAL `@modelcontextprotocol/ext-tasks` client against a
// 2026-07-28 server. On the modern era the package refuses to route `tools/call` / `tasks/*`
// through `Client.request` (the SDK's result codecs reject the V2 task shapes), so
// `createTaskSessionFromClient` requires two host-owned pieces (see its sdk-client-adapter.d.ts):
//   * `rawDispatch(request)` - a request coordinator that owns JSON-RPC ids and response matching.
//     The package hands it `{method, params}` already framed, and wants back
//     `{kind:'result', result}` or `{kind:'error', error}`.
//   * `v2RequestFraming` - the protocolVersion / clientInfo / clientCapabilities the Client was
//     built with; the adapter stamps them into `params._meta` of every task request.
// The coordinator below sends over the Client's own StreamableHTTPClientTransport (so headers
// such as MCP-Protocol-Version, Mcp-Method and Mcp-Name are derived by the SDK from the body)
// under a private string id space, and peels its responses off before the Client sees them.
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  type JsonRpcResponse,
  type RawClientDispatch,
  type TaskEnabledSession,
} from '@modelcontextprotocol/ext-tasks/client';

export const PROTOCOL_VERSION = '2026-07-28';

export interface ExtTasksConnection {
  client: Client;
  session: TaskEnabledSession;
  close(): Promise<void>;
}

type Pending = { resolve: (response: JsonRpcResponse) => void; reject: (error: unknown) => void };

/** Host request coordinator on top of a connected transport (HTTP or stdio): own ids, own response matching. */
export function createRawDispatch(transport: Transport): RawClientDispatch {
  const pending = new Map<string, Pending>();
  let nextId = 0;
  const clientHandler = transport.onmessage as ((message: unknown, extra?: unknown) => void) | undefined; // set by client.connect()
  transport.onmessage = ((message: any, extra?: any) => {
    const id = message?.id;
    if (typeof id === 'string' && pending.has(id) && !('method' in message)) {
      pending
        .get(id)!
        .resolve(
          'error' in message ? { kind: 'error', error: message.error } : { kind: 'result', result: message.result },
        );
      return;
    }
    clientHandler?.(message, extra);
  }) as typeof transport.onmessage;

  return async (request, options = {}) => {
    const id = `ext-tasks-${++nextId}`;
    const { signal, context } = options;
    const timeoutMs = context?.requestTimeoutMs ?? 60_000;
    return new Promise<JsonRpcResponse>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = (fn: () => void) => {
        if (!pending.has(id)) return;
        pending.delete(id);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const onAbort = () => settle(() => reject(signal!.reason ?? new DOMException('aborted', 'AbortError')));
      pending.set(id, {
        resolve: (response) => settle(() => resolve(response)),
        reject: (error) => settle(() => reject(error)),
      });
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      timer = setTimeout(
        () => settle(() => reject(new Error(`raw ${String((request as any).method)} timed out after ${timeoutMs} ms`))),
        timeoutMs,
      );
      transport
        .send({ jsonrpc: '2.0', id, ...(request as object) } as never, {
          requestSignal: signal,
          headers: context?.headers ? { ...context.headers } : undefined,
          onRequestStreamEnd: () => settle(() => reject(new Error(`stream for ${id} ended without a response`))),
        })
        .catch((error) => settle(() => reject(error)));
    });
  };
}

/** Connects the SDK Client (pinned to 2026-07-28) and wraps it in an ext-tasks session. */
export async function connectExtTasksSession(
  mcpUrl: string,
  opts: { fetch?: typeof fetch } = {},
): Promise<ExtTasksConnection> {
  const clientInfo = { name: 'reflow-ext-tasks-e2e', version: '0.0.0' };
  const clientCapabilities = {};
  const client = new Client(clientInfo, {
    capabilities: clientCapabilities,
    versionNegotiation: { mode: { pin: PROTOCOL_VERSION } },
  });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), opts.fetch ? { fetch: opts.fetch } : undefined);
  await client.connect(transport);

  const session = createTaskSessionFromClient(client, {
    endpointId: mcpUrl,
    rawDispatch: createRawDispatch(transport),
    v2RequestFraming: {
      protocolVersion: client.getNegotiatedProtocolVersion() ?? PROTOCOL_VERSION,
      clientInfo,
      clientCapabilities,
    },
  });
  return extTasksConnection(client, session);
}

/** A client and its ext-tasks session, closed together (the session first, the client whatever happens). */
export function extTasksConnection(client: Client, session: TaskEnabledSession): ExtTasksConnection {
  return {
    client,
    session,
    close: async () => {
      try {
        await session.close();
      } finally {
        await client.close();
      }
    },
  };
}
