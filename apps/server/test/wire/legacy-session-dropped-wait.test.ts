// A 2025-11-25 session's tasks/result wait whose client hangs up gives its held request back at
// once, as a stateless one does. The session's requests were served without the hang-up: the wait
// went on polling its task and kept one of the principal's MAX_HELD_REQUESTS_PER_PRINCIPAL until the
// task ended, so after a dropped wait the next one was refused (RFL_TOO_MANY_HELD). A client that
// resumes a dropped stream (Last-Event-ID) finds its answer there: the wait's "Wait ended", or the
// result of a synchronous call, which went on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseMcpBody } from '../../harness/mcp-wire.ts';
import { LEGACY_REVISION, RawLegacySession } from '../../harness/legacy-session.ts';
import { reflowOn, startTestServer } from '../helpers/test-server.ts';
import { loadAwareDeadline } from '../../../../scripts/test-wait.mjs';

const ALICE = 'alice-token-0123456789abcdef';

/** One JSON-RPC request of Alice's in `session`, as its own POST that `signal` may drop. */
function postInSession(
  session: RawLegacySession,
  request: { id: number; method: string; params: Record<string, unknown> },
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(session.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LEGACY_REVISION,
      'mcp-session-id': session.sessionId!,
      authorization: `Bearer ${ALICE}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...request }),
    signal,
  });
}

/** How long a request still unanswered counts as held open by the server (the task never ends). */
const HELD_MS = 500;

test('a 2025-11-25 session: a tasks/result wait dropped by its client gives its held request back; the next wait is accepted', async (t) => {
  // No workers: the task stays working, so every tasks/result on it waits. Two held requests: the
  // session is one, a wait the other.
  const server = await startTestServer({
    AUTH_TOKENS: `alice:client:${ALICE}`,
    WORKERS: '0',
    MAX_HELD_REQUESTS_PER_PRINCIPAL: '2',
  });
  const url = server.mcpUrl;
  const session = new RawLegacySession(url, ALICE);
  assert.equal((await session.open()).status, 200);
  assert.ok(session.sessionId, 'initialize opened a session (one of her two held requests)');
  const created = await session.post('tools/call', { name: 'reflow_month', arguments: reflowOn(1), task: {} });
  const taskId = created.body.result?.task?.taskId as string;
  assert.match(taskId, /^tsk_/, JSON.stringify(created.body));

  let nextId = 100;
  /** tasks/result in the session: what it answered, or 'held' when still unanswered after HELD_MS. */
  const wait = (signal?: AbortSignal) => {
    const answer = postInSession(session, { id: ++nextId, method: 'tasks/result', params: { taskId } }, signal)
      .then(async (response) => ({ answered: parseMcpBody(await response.text()) }))
      // The answer's headers come at once (its SSE stream opens): a drop may end the body instead.
      .catch((error: Error) => ({ dropped: error.name }));
    return { answer, first: Promise.race([answer, sleep(HELD_MS, 'held' as const)]) };
  };
  const open: Promise<unknown>[] = [];
  // The wait still open ends with its task (cancelled), then the server closes.
  t.after(async () => {
    await session.post('tasks/cancel', { taskId });
    await Promise.all(open);
    await server.close();
  });

  const drop = new AbortController();
  const dropped = wait(drop.signal);
  assert.equal(await dropped.first, 'held', 'the first wait is held open');
  drop.abort();
  assert.deepEqual(await dropped.answer, { dropped: 'AbortError' });

  // The server hears the hang-up within milliseconds; until it has, a new wait may still be refused.
  const deadline = loadAwareDeadline(5_000);
  let next: unknown;
  for (;;) {
    const asked = wait();
    next = await asked.first;
    if (next === 'held') {
      open.push(asked.answer);
      break;
    }
    if (deadline.passed()) break;
    await sleep(50);
  }
  assert.equal(next, 'held', `a wait after the dropped one is accepted, not refused: ${JSON.stringify(next)}`);
});

test('a 2025-11-25 session: a synchronous reflow_month dropped by its client is not cancelled (a disconnection SHOULD NOT be taken as a cancel)', async (t) => {
  const server = await startTestServer({ AUTH_TOKENS: `alice:client:${ALICE}`, WORKERS: '0' });
  const session = new RawLegacySession(server.mcpUrl, ALICE);
  t.after(() => server.close());
  assert.equal((await session.open()).status, 200);
  const drop = new AbortController();
  const call = postInSession(
    session,
    { id: 7, method: 'tools/call', params: { name: 'reflow_month', arguments: reflowOn(1) } },
    drop.signal,
  )
    .then((response) => response.text())
    .catch((error: Error) => error.name);
  // The synchronous call has created its task once the session lists it; then the client hangs up.
  const listed = async () => (await session.post('tasks/list', {})).body.result?.tasks ?? [];
  const created = loadAwareDeadline(5_000);
  while ((await listed()).length === 0 && !created.passed()) await sleep(50);
  const [task] = await listed();
  assert.ok(task, 'the synchronous call created its task');
  drop.abort();
  assert.equal(await call, 'AbortError');
  // Long enough for the server to hear the hang-up (it hears it within milliseconds).
  await sleep(HELD_MS);
  const after = (await listed()).find((x: { taskId: string }) => x.taskId === task.taskId);
  assert.equal(after?.status, 'working', `the task goes on: ${JSON.stringify(after)}`);
  await session.post('tasks/cancel', { taskId: task.taskId });
});

/** The id of the first SSE event of `response` (the priming event a resumable stream opens with). */
async function firstEventId(response: Response): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    assert.ok(!done, `the stream ended before an event id: ${text}`);
    text += decoder.decode(value, { stream: true });
    const id = /^id: ?(.+)$/m.exec(text)?.[1];
    if (id && text.includes('\n\n')) return id.trim();
  }
}

/**
 * `session`'s stream resumed after `lastEventId`. Until the server has heard the hang-up, the dropped
 * stream is still its own and a resume is refused 409 (as a second reader of a live stream is).
 */
async function resumed(session: RawLegacySession, lastEventId: string) {
  const deadline = loadAwareDeadline(5_000);
  for (;;) {
    const stream = await session.stream(lastEventId);
    if (stream.status !== 409 || deadline.passed()) return stream;
    stream.close();
    await sleep(50);
  }
}

/** Alice's open session on a fresh server started with `env`, closed after the test. */
async function aliceSession(t: { after: (fn: () => unknown) => void }, env: Record<string, string> = {}) {
  const server = await startTestServer({ AUTH_TOKENS: `alice:client:${ALICE}`, ...env });
  const session = new RawLegacySession(server.mcpUrl, ALICE);
  t.after(() => server.close());
  assert.equal((await session.open()).status, 200);
  return session;
}

test("a 2025-11-25 session: a dropped tasks/result wait's stream, resumed with Last-Event-ID, says why it ended", async (t) => {
  // No workers: the task stays working, so the wait is still waiting when its client hangs up.
  const session = await aliceSession(t, { WORKERS: '0' });
  const created = await session.post('tools/call', { name: 'reflow_month', arguments: reflowOn(1), task: {} });
  const taskId = created.body.result?.task?.taskId as string;
  assert.match(taskId, /^tsk_/, JSON.stringify(created.body));
  const drop = new AbortController();
  const waiting = await postInSession(session, { id: 201, method: 'tasks/result', params: { taskId } }, drop.signal);
  assert.equal(waiting.headers.get('content-type'), 'text/event-stream');
  const primed = await firstEventId(waiting);
  drop.abort();

  const stream = await resumed(session, primed);
  t.after(() => stream.close());
  assert.equal(stream.status, 200);
  const ended = await stream.until((m) => m.id === 201, 10_000);
  assert.match(ended.error?.message ?? '', /^Wait ended: the client closed the connection/, JSON.stringify(ended));
  await session.post('tasks/cancel', { taskId });
});

test("a 2025-11-25 session: a dropped synchronous reflow_month's stream, resumed with Last-Event-ID, carries its result", async (t) => {
  const session = await aliceSession(t);
  const drop = new AbortController();
  const calling = await postInSession(
    session,
    { id: 202, method: 'tools/call', params: { name: 'reflow_month', arguments: reflowOn(2) } },
    drop.signal,
  );
  const primed = await firstEventId(calling);
  drop.abort();

  const stream = await resumed(session, primed);
  t.after(() => stream.close());
  assert.equal(stream.status, 200);
  const answered = await stream.until((m) => m.id === 202, 60_000);
  assert.equal(answered.error, undefined, JSON.stringify(answered));
  assert.equal(answered.result?.isError, undefined, JSON.stringify(answered));
  assert.ok(answered.result?.structuredContent, JSON.stringify(answered));
});
