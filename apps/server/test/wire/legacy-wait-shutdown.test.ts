// A server shutting down answers the 2025-11-25 tasks/result waits it holds, stateless and in a
// session, instead of waiting for their clients to give up: the task is durable, so each client is
// told the server is shutting down and to ask for the task again elsewhere or after the restart.
// Before, a connected client's wait on a task that never ended (no workers) kept close() waiting for
// as long as the client kept waiting (fetch: forever), and a session's requests were ended with no
// answer at all: its synchronous reflow_month even cancelled its task.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseMcpBody } from '../../harness/mcp-wire.ts';
import { RawLegacySession } from '../../harness/legacy-session.ts';
import { legacyMcpBody, legacyMcpHeaders } from '../../harness/mcp-wire-2025.ts';
import { reflowOn, startTestServer, toolText } from '../helpers/test-server.ts';
import { loadAwareDeadline } from '../../../../scripts/test-wait.mjs';

/**
 * How long the close may take. Held requests are answered once the task engine has stopped: at
 * once here, as no attempt runs (WORKERS=0), so the close takes milliseconds; without the fix it
 * lasts until the clients give up, which this test's never do. 10 s of this process's own time (the
 * server runs in it; load-aware, so a busy machine does not stretch it into a failure) tells them
 * apart, and stays below SHUTDOWN_GRACE_MS, the longest a shutdown may wait for a running attempt.
 */
const CLOSE_BOUND_MS = 10_000;
const SHUTDOWN_GRACE_MS = 15_000;

/** How long a request still unanswered counts as held open by the server (its task never ends). */
const HELD_MS = 500;

type Outcome = { answered: any } | { failed: string };

test('shutdown: 2025-11-25 tasks/result waits on a task that never ends, stateless and in a session, are answered "shutting down, the task is durable", and the close finishes', async (t) => {
  // No workers: the tasks stay working, so every tasks/result on them waits, as does a synchronous call.
  const server = await startTestServer({ WORKERS: '0', SHUTDOWN_GRACE_MS: String(SHUTDOWN_GRACE_MS) });
  // Were the requests not answered, the clients give up here, so that the close ends (and the test fails, not hangs).
  const giveUp = new AbortController();
  t.after(async () => {
    giveUp.abort();
    await server.close();
  });
  const url = server.mcpUrl;

  const session = new RawLegacySession(url);
  assert.equal((await session.open()).status, 200);
  assert.ok(session.sessionId, 'initialize opened a session');
  const created = await session.post('tools/call', { name: 'reflow_month', arguments: reflowOn(1), task: {} });
  const taskId = created.body.result?.task?.taskId as string;
  assert.match(taskId, /^tsk_/, JSON.stringify(created.body));

  /** A request from a client that stays connected, in the session or stateless. */
  const ask = (method: string, params: Record<string, unknown>, id: number, sessionId?: string): Promise<Outcome> =>
    fetch(url, {
      method: 'POST',
      headers: { ...legacyMcpHeaders(), ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
      body: legacyMcpBody(method, params, id),
      signal: giveUp.signal,
    })
      .then(async (response) => ({ answered: parseMcpBody(await response.text()) }))
      .catch((error: Error) => ({ failed: `${error.name}: ${error.message}` }));
  const waits = {
    stateless: ask('tasks/result', { taskId }, 1),
    session: ask('tasks/result', { taskId }, 100, session.sessionId),
  };
  // And the session's synchronous call, which waits for the task it creates.
  const call = ask('tools/call', { name: 'reflow_month', arguments: reflowOn(2) }, 101, session.sessionId);
  const early = await Promise.race([...Object.values(waits), call, sleep(HELD_MS, 'held' as const)]);
  assert.equal(early, 'held', `the requests are held open, not answered: ${JSON.stringify(early)}`);
  const [called] = (await server.services.store.tasks.listForOwner('anonymous', 10)).filter((x) => x.id !== taskId);
  assert.ok(called, 'the synchronous call created its task');

  const clock = loadAwareDeadline(CLOSE_BOUND_MS);
  const closed = server.close({ keepDatabase: true }).then(() => 'closed' as const);
  let state: 'closed' | 'closing' = 'closing';
  while (state === 'closing' && !clock.passed()) state = await Promise.race([closed, sleep(100, 'closing' as const)]);
  assert.equal(state, 'closed', `the server was still closing after ${Math.round(clock.elapsedMs())} ms`);

  for (const [how, outcome] of Object.entries(waits)) {
    const answer = await outcome;
    assert.ok('answered' in answer, `${how}: ${JSON.stringify(answer)}`);
    const { error } = answer.answered ?? {};
    assert.ok(error, `${how}: a JSON-RPC error, not ${JSON.stringify(answer.answered)}`);
    assert.equal(error.code, -32603, how);
    assert.deepEqual(error.data, { code: 'RFL_SHUTTING_DOWN', taskId }, how);
    assert.match(error.message, new RegExp(`shutting down.*${taskId}.*durable`, 'i'), how);
    assert.match(error.message, /tasks\/get/, `${how}: it says how to come back`);
  }
  // The synchronous call is answered as a stateless one is: its task stays queued, not cancelled.
  const answer = await call;
  assert.ok('answered' in answer && answer.answered, `the synchronous call: ${JSON.stringify(answer)}`);
  assert.match(toolText(answer.answered), new RegExp(`shutting down; task ${called.id} stays queued`));
  const restarted = await startTestServer({ WORKERS: '0' }, server.databasePath);
  t.after(() => restarted.close());
  assert.equal((await restarted.services.store.tasks.get(called.id))?.status, 'working');
});
