// A server whose 2025-11-25 clients dropped waits still closes at once. fetch (the HTTP of the SDK
// clients' transports, and of this test), when a request it sent is aborted, closes that connection
// and at once opens a fresh one it sends nothing on, kept until the keep-alive hint of the last
// answer on that connection runs out (Fastify's 72 s, less fetch's 2 s). Node's server, closing,
// ends only the connections between two requests, and close() resolves when the last connection is
// gone: the server took about 70 s to close once two waits had been dropped (after one, the
// client's next request usually takes the fresh connection).
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseMcpBody } from '../../harness/mcp-wire.ts';
import { LEGACY_PROTOCOL_VERSION, legacyMcpBody, legacyMcpHeaders } from '../../harness/mcp-wire-2025.ts';
import { reflowOn, startTestServer } from '../helpers/test-server.ts';
import { loadAwareDeadline } from '../../../../scripts/test-wait.mjs';

/**
 * How long the close may take: milliseconds with the fix, 70 s without, so 10 s of this process's
 * own time (load-aware: a busy machine does not stretch it into a failure) tells them apart.
 */
const CLOSE_BOUND_MS = 10_000;

/** One 2025-11-25 request over fetch, as a 2025-era client sends it once it knows the revision. */
function legacyFetch(url: string, method: string, params: Record<string, unknown>, signal?: AbortSignal) {
  return fetch(url, { method: 'POST', headers: legacyMcpHeaders(), body: legacyMcpBody(method, params), signal });
}

/** A 2025-era client's handshake: initialize (naming its revision: no session), then notifications/initialized. */
async function handshake(url: string): Promise<void> {
  const initialize = await legacyFetch(url, 'initialize', {
    protocolVersion: LEGACY_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'dropping-2025-client', version: '0.0.0' },
  });
  assert.equal(parseMcpBody(await initialize.text())?.result?.protocolVersion, LEGACY_PROTOCOL_VERSION);
  const initialized = await fetch(url, {
    method: 'POST',
    headers: legacyMcpHeaders(),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await initialized.arrayBuffer();
  assert.equal(initialized.status, 202);
}

test('two 2025-11-25 tasks/result waits dropped by their client: the server still closes at once', async (t) => {
  // No workers: the task stays working, so every tasks/result on it waits.
  const server = await startTestServer({ WORKERS: '0' });
  t.after(() => server.close());
  const url = server.mcpUrl;
  // Every connection the server accepts (Node publishes each on this channel).
  const accepted: Socket[] = [];
  const port = Number(new URL(url).port);
  const onAccepted = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    if (socket.localPort === port) accepted.push(socket);
  };
  subscribe('net.server.socket', onAccepted);
  t.after(() => unsubscribe('net.server.socket', onAccepted));

  // Three clients start at once, on three connections of fetch's pool. The 202 that ends each
  // handshake carries the server's keep-alive hint (the SSE answers, which set their own Connection
  // header, carry none): fetch keeps each of these connections for 70 s once idle.
  await Promise.all([1, 2, 3].map(() => handshake(url)));
  const created = parseMcpBody(
    await (await legacyFetch(url, 'tools/call', { name: 'reflow_month', arguments: reflowOn(1), task: {} })).text(),
  );
  const taskId = created?.result?.task?.taskId as string;
  assert.match(taskId, /^tsk_/, JSON.stringify(created));

  // Two waits, held open by the server (the task does not end), then dropped: the client aborts them.
  const drop = new AbortController();
  const waits = [1, 2].map(() =>
    legacyFetch(url, 'tasks/result', { taskId }, drop.signal).then(
      async (response) => ({ answered: await response.text() }),
      (error: Error) => ({ dropped: error.name }),
    ),
  );
  const early = await Promise.race([...waits, sleep(500).then(() => 'held' as const)]);
  assert.equal(early, 'held', 'the waits are held open, not answered');
  const before = accepted.length;
  drop.abort();
  assert.deepEqual(await Promise.all(waits), [{ dropped: 'AbortError' }, { dropped: 'AbortError' }]);
  // fetch's fresh connections, one per dropped wait, reach the server: the shutdown comes after them.
  const reconnected = loadAwareDeadline(5_000);
  const fresh = () => accepted.slice(before).filter((socket) => socket.bytesRead === 0 && !socket.destroyed);
  while (fresh().length < 2 && !reconnected.passed()) await sleep(10);
  assert.equal(fresh().length, 2, 'fetch opened a fresh connection for each dropped wait, and sent nothing on it');

  const clock = loadAwareDeadline(CLOSE_BOUND_MS);
  const closed = server.close().then(() => 'closed' as const);
  let state: 'closed' | 'closing' = 'closing';
  while (state === 'closing' && !clock.passed()) state = await Promise.race([closed, sleep(100, 'closing' as const)]);
  assert.equal(state, 'closed', `the server was still closing after ${Math.round(clock.elapsedMs())} ms`);
});
