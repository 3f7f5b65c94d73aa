// 2025-11-25 sessions over HTTP: initialize answers with Mcp-Session-Id; the session's standalone
// GET stream carries notifications/tasks/status for the tasks created in it, up to the terminal
// one; a dropped stream resumed with Last-Event-ID gets what it missed; DELETE ends the session.
// Polling works beside it without a session, and a stateless 2025 request is served as before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reflowOn, startTestServer } from '../helpers/test-server.ts';
import { RawLegacySession, statusNotes } from '../../harness/legacy-session.ts';

const TERMINAL = ['completed', 'failed', 'cancelled'];

test('2025-11-25 session: the GET stream carries notifications/tasks/status up to completed; resumable; DELETE ends it', async (t) => {
  const server = await startTestServer({ POLL_INTERVAL_MS: '100' });
  t.after(() => server.close());
  const session = new RawLegacySession(server.mcpUrl);
  const init = await session.open();
  assert.equal(init.status, 200);
  assert.match(session.sessionId ?? '', /^[0-9a-f-]{36}$/, 'initialize issued an Mcp-Session-Id');
  assert.ok(init.body.result.capabilities.tasks, 'the 2025-11-25 tasks capability');

  const stream = await session.stream();
  t.after(() => stream.close());
  assert.equal(stream.status, 200);
  const created = await session.post('tools/call', { name: 'reflow_month', arguments: reflowOn(11), task: {} });
  const taskId = created.body.result.task.taskId as string;
  assert.match(taskId, /^tsk_/);

  // The first change, then the stream drops.
  const first = await stream.until((m) => m.method === 'notifications/tasks/status' && m.params.taskId === taskId);
  const lastSeen = stream.events.at(-1)!.id;
  assert.ok(lastSeen, 'events carry ids (resumability)');
  stream.close();
  // Polling without the session, as any client may.
  const polled = await new RawLegacySession(server.mcpUrl).post('tasks/get', { taskId });
  assert.equal(polled.body.result.taskId, taskId);

  // Resumed after the last event seen: what followed, up to the terminal one.
  const resumed = await session.stream(lastSeen);
  t.after(() => resumed.close());
  const done = await resumed.until(
    (m) => m.method === 'notifications/tasks/status' && TERMINAL.includes(m.params.status),
  );
  assert.equal(done.params.status, 'completed');
  const notes = [first.params, ...statusNotes(resumed, taskId)];
  assert.equal(notes.filter((n) => TERMINAL.includes(n.status)).length, 1, 'one terminal notification');
  assert.equal(notes.at(-1).status, 'completed', 'and it is the last');
  assert.ok(
    !statusNotes(resumed, taskId).some(
      (n) =>
        n.lastUpdatedAt === first.params.lastUpdatedAt &&
        n.status === first.params.status &&
        n.statusMessage === first.params.statusMessage,
    ),
    'nothing seen before the drop is sent again',
  );
  // Each is the task as the 2025-11-25 tasks/get shows it; the terminal one exactly.
  const got = (await session.post('tasks/get', { taskId })).body.result;
  const { _meta: _, ...shown } = got;
  assert.deepEqual(done.params, shown);
  for (const n of notes)
    assert.deepEqual(
      Object.keys(n).sort(),
      Object.keys(shown)
        .filter((k) => k in n)
        .sort(),
    );

  assert.equal(await session.delete(), 200);
  const after = await session.stream();
  assert.equal(after.status, 404, 'an ended session is not found');
});

test('2025-11-25 session: another principal cannot use it; a stateless 2025 request still works', async (t) => {
  const tokens = { alice: 'tok-alice-0123456789', bob: 'tok-bob-0123456789' };
  const server = await startTestServer({
    AUTH_TOKENS: `alice:client:${tokens.alice},bob:client:${tokens.bob}`,
    WORKERS: '0',
  });
  t.after(() => server.close());
  const alice = new RawLegacySession(server.mcpUrl, tokens.alice);
  await alice.open();
  assert.ok(alice.sessionId);
  const bob = new RawLegacySession(server.mcpUrl, tokens.bob);
  bob.sessionId = alice.sessionId;
  assert.equal((await bob.post('tools/list', {})).status, 404, "alice's session reads as none to bob");
  assert.equal((await bob.stream()).status, 404);

  // Stateless, as before: no session id, answered at once.
  const stateless = await new RawLegacySession(server.mcpUrl, tokens.bob).post('tools/call', {
    name: 'reflow_month',
    arguments: reflowOn(12),
    task: {},
  });
  assert.equal(stateless.headers.get('mcp-session-id'), null);
  assert.match(stateless.body.result.task.taskId, /^tsk_/);
});
