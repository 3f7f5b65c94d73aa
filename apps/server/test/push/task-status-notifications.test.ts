// Task Status Notifications (SEP-2663) over a raw stream: subscriptions/listen with
// notifications.taskIds is acknowledged with the ids this caller may follow, then carries
// notifications/tasks — each the task as tasks/get shows it — for the status and statusMessage
// changes it reads (writes landing between two reads come out as one; at most one push per 250 ms per
// task, the newest replacing one waiting), the terminal one last; the stream outlives the task;
// polling works beside it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { TaskStatusNotificationV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import { mcpBody, mcpHeaders } from '../../harness/mcp-wire.ts';
import { rpc, startTestServer, TASKS, type TestServer } from '../helpers/test-server.ts';
import { SLOW_REFLOW, slowMonthSeedFile } from '../helpers/slow-month.ts';

const SEPT = { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20', dry_run: true };
const TERMINAL = ['completed', 'failed', 'cancelled'];

interface Listen {
  status: number;
  /** Every JSON-RPC message received so far, in order. */
  messages: any[];
  /** Resolves when a message matching `predicate` has arrived (or rejects after `timeoutMs`). */
  until(predicate: (m: any) => boolean, timeoutMs?: number): Promise<any>;
  /** True once the server ended the stream. */
  ended(): boolean;
  close(): void;
}

/** Opens subscriptions/listen and reads its SSE frames as they come. */
async function listen(
  url: string,
  taskIds: unknown,
  opts: { token?: string; tasks?: boolean; id?: number } = {},
): Promise<Listen> {
  const abort = new AbortController();
  const response = await fetch(url, {
    method: 'POST',
    signal: abort.signal,
    headers: {
      ...mcpHeaders('subscriptions/listen'),
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
    },
    body: mcpBody('subscriptions/listen', { notifications: { taskIds } }, { id: opts.id ?? 7, tasks: opts.tasks }),
  });
  const messages: any[] = [];
  const waiters = new Set<() => void>();
  let done = false;
  if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let cut;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const data = frame
              .split('\n')
              .filter((l) => l.startsWith('data:'))
              .map((l) => l.slice(5).trimStart())
              .join('\n');
            if (data) messages.push(JSON.parse(data));
            for (const wake of waiters) wake();
          }
        }
      } catch {
        // aborted by close()
      }
      done = true;
      for (const wake of waiters) wake();
    })();
  } else {
    messages.push(await response.json());
    done = true;
  }
  return {
    status: response.status,
    messages,
    ended: () => done,
    close: () => abort.abort(),
    until(predicate, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find((message) => predicate(message));
          if (found) return finish(() => resolve(found));
          if (done) finish(() => reject(new Error(`stream ended first: ${JSON.stringify(messages)}`)));
        };
        const timer = setTimeout(
          () => finish(() => reject(new Error(`timed out: ${JSON.stringify(messages)}`))),
          timeoutMs,
        );
        const finish = (then: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          then();
        };
        waiters.add(check);
        check();
      });
    },
  };
}

const taskNotes = (l: Listen, taskId: string) =>
  l.messages.filter((m) => m.method === 'notifications/tasks' && m.params.taskId === taskId).map((m) => m.params);

test('listen: working then its statusMessages in order, none twice, then completed, each as tasks/get shows it; the stream outlives the task', async (t) => {
  // The slow month: the task is still working when the listen reads it, on a loaded machine too (the
  // demo month's whole run can end first), and its solve writes progress along the way.
  const server = await startTestServer({ SEED_FILE: slowMonthSeedFile() });
  t.after(() => server.close());
  const created = (
    await rpc(server.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: { ...SLOW_REFLOW, dry_run: true } })
  ).body.result;
  assert.equal(created.resultType, 'task');
  const taskId = created.taskId as string;
  const stream = await listen(server.mcpUrl, [taskId, 'tsk_unknown_0000']);
  t.after(() => stream.close());
  assert.equal(stream.status, 200);

  const ack = await stream.until((m) => m.method === 'notifications/subscriptions/acknowledged');
  assert.deepEqual(ack.params.notifications, { taskIds: [taskId] }, 'the unknown id is left out');
  assert.equal(ack.params._meta['io.modelcontextprotocol/subscriptionId'], 7);
  // Polling stays correct beside the stream.
  const polled = (await rpc(server.mcpUrl, 'tasks/get', { taskId })).body.result;
  assert.equal(polled.taskId, taskId);

  const last = await stream.until((m) => m.method === 'notifications/tasks' && TERMINAL.includes(m.params.status));
  assert.equal(last.params.status, 'completed');
  const notes = taskNotes(stream, taskId);
  assert.equal(notes[0].status, 'working', 'the stream opens with where the task stands');
  for (const m of stream.messages.filter((x) => x.method === 'notifications/tasks'))
    assert.ok(TaskStatusNotificationV2Schema.safeParse(m).success, JSON.stringify(m).slice(0, 300));

  // The terminal notification is exactly what tasks/get answers now (less the result discriminator).
  const { resultType: _, _meta: __, ...got } = (await rpc(server.mcpUrl, 'tasks/get', { taskId })).body.result;
  const { _meta: ___, ...pushed } = last.params;
  assert.deepEqual(pushed, got);

  // What was pushed of the statusMessages the task wrote came in the order written, none twice. Not
  // every one: one may be replaced by the next when two reach the stream within the push spacing
  // (250 ms; a write's commit can be late), and writes that land between two reads of the task come
  // out as one notification. The solve's last progress and its end are milliseconds apart, so on a
  // loaded machine the last progress may be read only as part of the terminal notification.
  const written = (await server.services.store.tasks.events(taskId))
    .filter((e) => e.kind === 'progress')
    .map((e) => e.message);
  assert.ok(written.length > 0, 'the solve wrote progress');
  const pushedProgress = notes
    .filter((n) => n.status === 'working')
    .map((n) => n.statusMessage)
    .filter((m) => written.includes(m));
  let at = -1;
  for (const message of pushedProgress) {
    const found = written.indexOf(message, at + 1);
    assert.ok(found > at, `"${message}" pushed in the order written (${JSON.stringify(written)})`);
    at = found;
  }
  const told = notes.map((n) => `${n.status} ${n.statusMessage}`);
  assert.ok(
    told.every((state, i) => i === 0 || state !== told[i - 1]),
    `each notification is a change: ${JSON.stringify(told)}`,
  );
  assert.equal(notes.filter((n) => TERMINAL.includes(n.status)).length, 1, 'one terminal notification');
  assert.equal(notes.at(-1).status, 'completed', 'and it is the last for this task');

  // The stream is still open after the task ended.
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(stream.ended(), false, 'the stream survives the task finishing');
  assert.equal(taskNotes(stream, taskId).length, notes.length, 'nothing follows the terminal notification');
  // A stopping server ends the stream gracefully: the listen request's own result comes last.
  await server.close();
  await stream.until((m) => m.id === 7 && m.result?.resultType === 'complete', 5_000);
});

test('listen: another owner’s task is left out (the stream then ends at once); an operator may follow it', async (t) => {
  const tokens = { alice: 'tok-alice-0123456789', bob: 'tok-bob-0123456789', ops: 'tok-ops-0123456789' };
  const server = await startTestServer({
    AUTH_TOKENS: `alice:client:${tokens.alice},bob:client:${tokens.bob},ops:operator:${tokens.ops}`,
    WORKERS: '0',
  });
  t.after(() => server.close());
  const created = await rpc(
    server.mcpUrl,
    'tools/call',
    { name: 'reflow_month', arguments: SEPT },
    { token: tokens.alice },
  );
  const taskId = created.body.result.taskId as string;

  const bob = await listen(server.mcpUrl, [taskId], { token: tokens.bob });
  t.after(() => bob.close());
  const refused = await bob.until((m) => m.method === 'notifications/subscriptions/acknowledged');
  assert.deepEqual(refused.params.notifications, { taskIds: [] });
  const closing = await bob.until((m) => m.id === 7 && m.result);
  assert.equal(closing.result.resultType, 'complete');
  assert.deepEqual(taskNotes(bob, taskId), [], 'nothing of the task reaches another owner');

  const ops = await listen(server.mcpUrl, [taskId], { token: tokens.ops });
  t.after(() => ops.close());
  const accepted = await ops.until((m) => m.method === 'notifications/subscriptions/acknowledged');
  assert.deepEqual(accepted.params.notifications, { taskIds: [taskId] });
  await ops.until((m) => m.method === 'notifications/tasks' && m.params.status === 'working');
  // A cancel is pushed to the operator as it is written.
  await rpc(server.mcpUrl, 'tasks/cancel', { taskId }, { token: tokens.alice });
  const cancelled = await ops.until((m) => m.method === 'notifications/tasks' && m.params.status === 'cancelled');
  assert.equal(cancelled.params.taskId, taskId);
});

test('a cancel landing just after the listen read the task is pushed once, never twice', async (t) => {
  const server = await startTestServer({ WORKERS: '0' });
  t.after(() => server.close());
  const taskId = (await rpc(server.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: SEPT })).body.result
    .taskId as string;

  // Forces the order: the cancel commits once the listen's read of the task has its row, before
  // the listen goes on. A listen that read the task a second time (and a watch that only began
  // listening after its own read) opened with "cancelled" and pushed it again at the re-read.
  const engine = server.services.engine;
  const peek = engine.peek.bind(engine);
  let reads = 0;
  engine.peek = async (id) => {
    const row = await peek(id);
    if (id === taskId && ++reads === 1)
      assert.equal((await rpc(server.mcpUrl, 'tasks/cancel', { taskId })).status, 200);
    return row;
  };
  const stream = await listen(server.mcpUrl, [taskId]);
  t.after(() => stream.close());
  await stream.until((m) => m.method === 'notifications/tasks' && m.params.status === 'cancelled');
  await sleep(1_500); // past the watch's 1 s re-read
  const statuses = taskNotes(stream, taskId).map((n) => n.status);
  assert.deepEqual(
    statuses.filter((s) => s === 'cancelled'),
    ['cancelled'],
    `one terminal notification (${statuses.join(', ')})`,
  );
  assert.equal(statuses.at(-1), 'cancelled', 'and it is the last');
  assert.ok(statuses.length <= 2 && (statuses.length === 1 || statuses[0] === 'working'), statuses.join(', '));
});

test('a listen whose read of its second task fails leaves its first task unwatched', async (t) => {
  const server = await startTestServer({ WORKERS: '0' });
  t.after(() => server.close());
  const create = async (args: typeof SEPT) =>
    (await rpc(server.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: args })).body.result.taskId as string;
  const a = await create(dayOf('2026-09-07', '2026-09-08'));
  const b = await create(dayOf('2026-09-21', '2026-09-22'));

  const engine = server.services.engine;
  const peek = engine.peek.bind(engine);
  let readsOfA = 0;
  engine.peek = async (id) => {
    if (id === b) throw new Error('the database went away');
    if (id === a) readsOfA++;
    return peek(id);
  };
  const stream = await listen(server.mcpUrl, [a, b]);
  t.after(() => stream.close());
  assert.notEqual(stream.status, 200, 'the listen is refused');
  assert.equal(readsOfA, 1, "the listen read the first task (its watch's first read)");
  const readsAfter = readsOfA;
  await sleep(2_500); // over two of the watch's 1 s re-reads
  assert.equal(readsOfA, readsAfter, 'nothing still watches the first task');
});

test('listen for tasks without the Tasks extension declared is -32021 (HTTP 400)', async (t) => {
  const server = await startTestServer({ WORKERS: '0' });
  t.after(() => server.close());
  const created = await rpc(server.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: SEPT });
  const taskId = created.body.result.taskId as string;
  const undeclared = await listen(server.mcpUrl, [taskId], { tasks: false });
  assert.equal(undeclared.status, 400);
  assert.equal(undeclared.messages[0].error?.code, -32021, JSON.stringify(undeclared.messages));
  assert.deepEqual(undeclared.messages[0].error.data.requiredCapabilities, { extensions: { [TASKS]: {} } });
  assert.equal(undeclared.messages[0].id, 7);
  const malformed = await listen(server.mcpUrl, [42]);
  assert.equal(malformed.messages[0].error?.code, -32602);
});

test('a listen still reading its tasks when the server begins to stop opens, says where the task stands, and ends', async (t) => {
  const server = await startTestServer({ WORKERS: '0' });
  t.after(() => server.close());
  const created = await rpc(server.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: SEPT });
  const taskId = created.body.result.taskId as string;

  // Forces the order: the listen's read of the task is held until the server has begun to stop.
  const engine = server.services.engine;
  const peek = engine.peek.bind(engine);
  let entered!: () => void;
  const reading = new Promise<void>((resolve) => (entered = resolve));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  engine.peek = async (id) => {
    entered();
    await held;
    return peek(id);
  };
  const opening = listen(server.mcpUrl, [taskId]);
  await reading;
  const closed = server.close();
  // The server has run its stop hooks once it refuses new connections.
  for (;;) {
    const refused = await fetch(`${server.url}/healthz`).then(
      () => false,
      () => true,
    );
    if (refused) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  release();
  const stream = await opening;
  try {
    await stream.until((m) => m.method === 'notifications/tasks' && m.params.taskId === taskId, 5_000);
    const last = await stream.until((m) => m.id === 7 && m.result, 5_000);
    assert.equal(last.result.resultType, 'complete');
  } finally {
    stream.close(); // a failed run still lets the server finish stopping
  }
  await closed;
});

/**
 * Two servers on one database, so two live tasks can have different TTLs: `short` gives its tasks
 * `ttlMs`, `long` the default day. Neither runs tasks (WORKERS=0): they stay working until cancelled.
 */
async function shortAndLongTtl(t: { after(fn: () => Promise<void>): void }, ttlMs: number) {
  const short = await startTestServer({ TASK_TTL_MS: String(ttlMs), WORKERS: '0' });
  const long = await startTestServer({ WORKERS: '0' }, short.databasePath);
  t.after(async () => {
    await long.close({ keepDatabase: true });
    await short.close();
  });
  return { short, long };
}

/** Resolves at the first read of `taskId` on `server` from now on that finds it gone (past its TTL). */
function firstGoneRead(server: TestServer, taskId: string, timeoutMs: number): Promise<void> {
  const engine = server.services.engine;
  const peek = engine.peek.bind(engine);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no read found ${taskId} gone in ${timeoutMs} ms`)), timeoutMs);
    engine.peek = async (id) => {
      const row = await peek(id);
      if (id === taskId && !row) {
        clearTimeout(timer);
        resolve();
      }
      return row;
    };
  });
}

const SHORT_TTL_MS = 2_000;
const dayOf = (from: string, to: string) => ({ ...SEPT, from, to });

test('a listen on two tasks ends once one is gone (past its TTL) and then the other is cancelled', async (t) => {
  const { short, long } = await shortAndLongTtl(t, SHORT_TTL_MS);
  const b = (
    await rpc(long.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: dayOf('2026-09-21', '2026-09-22') })
  ).body.result.taskId as string;
  const a = (
    await rpc(short.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: dayOf('2026-09-07', '2026-09-08') })
  ).body.result.taskId as string;
  // Nothing else reads A from here on: the first read that finds A gone is the listen's re-read.
  const aGone = firstGoneRead(long, a, SHORT_TTL_MS + 10_000);
  const stream = await listen(long.mcpUrl, [a, b]);
  t.after(() => stream.close());
  const ack = await stream.until((m) => m.method === 'notifications/subscriptions/acknowledged');
  assert.deepEqual(ack.params.notifications.taskIds, [a, b], `both followed (A's ${SHORT_TTL_MS} ms TTL not yet past)`);
  await stream.until((m) => m.method === 'notifications/tasks' && m.params.taskId === b);

  // Forces the order: the listen has read A gone before B ends.
  await aGone;
  await sleep(50);
  const got = await rpc(long.mcpUrl, 'tasks/get', { taskId: a });
  assert.equal(got.body.error?.message, 'Task has expired', JSON.stringify(got.body));
  assert.equal(stream.ended(), false, 'B still works: the stream stays open');

  await rpc(long.mcpUrl, 'tasks/cancel', { taskId: b });
  const end = await stream
    .until((m) => m.id === 7 && m.result, 5_000)
    .catch((error: Error) =>
      assert.fail(`A gone then B cancelled: the listen should end with its result, but ${error.message}`),
    );
  assert.equal(end.result.resultType, 'complete');
  assert.equal(stream.messages.at(-1), end, 'the result is the last message');
  assert.equal(taskNotes(stream, b).at(-1).status, 'cancelled', "B's terminal notification came first");
});

test('a task gone after the listen read it but before the stream opened still lets the stream end', async (t) => {
  const { short, long } = await shortAndLongTtl(t, SHORT_TTL_MS);
  const b = (
    await rpc(long.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: dayOf('2026-09-21', '2026-09-22') })
  ).body.result.taskId as string;
  await rpc(long.mcpUrl, 'tasks/cancel', { taskId: b });
  const a = (
    await rpc(short.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: dayOf('2026-09-07', '2026-09-08') })
  ).body.result.taskId as string;

  // Forces the order: the listen's read of B (its watch's first, after A's watch opened with A
  // working) is held until the listen has heard A gone.
  const engine = long.services.engine;
  const peek = engine.peek.bind(engine);
  let readsOfB = 0;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  engine.peek = async (id) => {
    if (id === b && ++readsOfB === 1) await held;
    return peek(id);
  };
  const aGone = firstGoneRead(long, a, SHORT_TTL_MS + 10_000);
  const opening = listen(long.mcpUrl, [a, b]);
  try {
    await aGone;
    await sleep(50); // the listen hears it
  } finally {
    release();
  }
  await sleep(50);
  release();
  const stream = await opening;
  t.after(() => stream.close());
  const ack = await stream.until((m) => m.method === 'notifications/subscriptions/acknowledged');
  assert.deepEqual(ack.params.notifications.taskIds, [a, b], `both followed (A's ${SHORT_TTL_MS} ms TTL not yet past)`);
  const end = await stream
    .until((m) => m.id === 7 && m.result, 5_000)
    .catch((error: Error) =>
      assert.fail(`A gone and B cancelled before the stream opened: it should end at once, but ${error.message}`),
    );
  assert.equal(end.result.resultType, 'complete');
  assert.equal(taskNotes(stream, b).at(-1).status, 'cancelled');
  assert.deepEqual(taskNotes(stream, a), [], 'nothing is pushed for a task gone before the stream opened');
});
