// A raw 2025-11-25 session over HTTP, as a host without an SDK speaks it: initialize (which
// answers with Mcp-Session-Id), requests carrying the id, the standalone GET stream read frame by
// frame (event ids kept, for Last-Event-ID), and DELETE.
import { parseMcpBody } from './mcp-wire.ts';

export const LEGACY_REVISION = '2025-11-25';

export interface SessionStream {
  status: number;
  /** Every message received so far, with its SSE event id. */
  events: { id?: string; message: any; at: number }[];
  /** Resolves with the first message matching `predicate` (rejects after `timeoutMs`). */
  until(predicate: (m: any) => boolean, timeoutMs?: number): Promise<any>;
  close(): void;
}

export class RawLegacySession {
  sessionId?: string;
  #id = 0;
  #opening = false;

  constructor(
    readonly url: string,
    readonly token?: string,
  ) {}

  #headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      accept: 'application/json, text/event-stream',
      // After initialize (or without one: a stateless client) every request names the revision.
      ...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
      ...(this.#opening ? {} : { 'mcp-protocol-version': LEGACY_REVISION }),
      ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      ...extra,
    };
  }

  /** initialize + notifications/initialized; resolves with the initialize result and response. */
  async open(capabilities: Record<string, unknown> = { tasks: { requests: { tools: { call: {} } } } }) {
    this.#opening = true;
    const response = await this.post('initialize', {
      protocolVersion: LEGACY_REVISION,
      capabilities,
      clientInfo: { name: 'raw-2025-session', version: '0.0.0' },
    }).finally(() => (this.#opening = false));
    this.sessionId = response.headers.get('mcp-session-id') ?? undefined;
    await fetch(this.url, {
      method: 'POST',
      headers: this.#headers({ 'content-type': 'application/json' }),
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    return response;
  }

  /** One request; the response carries `status`, `headers` and the parsed JSON-RPC `body`. */
  async post(method: string, params: Record<string, unknown>) {
    const res = await fetch(this.url, {
      method: 'POST',
      headers: this.#headers({ 'content-type': 'application/json' }),
      body: JSON.stringify({ jsonrpc: '2.0', id: ++this.#id, method, params }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: parseMcpBody(text) as any };
  }

  /** The standalone GET stream, resumed after `lastEventId` when given. */
  async stream(lastEventId?: string): Promise<SessionStream> {
    const abort = new AbortController();
    const response = await fetch(this.url, {
      method: 'GET',
      signal: abort.signal,
      headers: this.#headers({ accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) }),
    });
    const events: SessionStream['events'] = [];
    const waiters = new Set<() => void>();
    if (response.ok && response.body)
      void (async () => {
        const decoder = new TextDecoder();
        let buffer = '';
        try {
          for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
            buffer += decoder.decode(chunk, { stream: true });
            let cut;
            while ((cut = buffer.indexOf('\n\n')) >= 0) {
              const lines = buffer.slice(0, cut).split('\n');
              buffer = buffer.slice(cut + 2);
              const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart());
              const id = lines
                .find((l) => l.startsWith('id:'))
                ?.slice(3)
                .trim();
              if (data.length && data.join(''))
                events.push({ id, message: JSON.parse(data.join('\n')), at: Date.now() });
              for (const wake of waiters) wake();
            }
          }
        } catch {
          // aborted by close()
        }
      })();
    return {
      status: response.status,
      events,
      close: () => abort.abort(),
      until: (predicate, timeoutMs = 60_000) =>
        new Promise((resolve, reject) => {
          const check = () => {
            const found = events.find((e) => predicate(e.message));
            if (!found) return;
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found.message);
          };
          const timer = setTimeout(() => {
            waiters.delete(check);
            reject(new Error(`no such message in ${timeoutMs} ms; got ${JSON.stringify(events)}`));
          }, timeoutMs);
          waiters.add(check);
          check();
        }),
    };
  }

  async delete(): Promise<number> {
    const res = await fetch(this.url, { method: 'DELETE', headers: this.#headers() });
    await res.arrayBuffer();
    return res.status;
  }
}

export const statusNotes = (s: SessionStream, taskId: string) =>
  s.events
    .map((e) => e.message)
    .filter((m) => m.method === 'notifications/tasks/status' && m.params.taskId === taskId)
    .map((m) => m.params);
