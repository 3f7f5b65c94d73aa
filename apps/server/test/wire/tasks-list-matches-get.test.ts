// tasks/list (2025-11-25) must show each task exactly as tasks/get does: a 2025-era client that
// follows the list polls at the listed pollInterval. Once it handed out each task's position in
// the list instead (a view builder passed by reference to Array.prototype.map took the index as
// its optional pollInterval), and no test compared the two answers. Each task's 2026-07-28 tasks/get
// (the same row) must agree with them on every field the two revisions share.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { rpc, startTestServer, type TestServer } from '../helpers/test-server.ts';

// tasks/list is served only where requestors are told apart (tokens): alice lists her own tasks.
const TOKEN = 'tok-alice-0123456789';
const AUTH_TOKENS = `alice:client:${TOKEN}`;

type LegacyTask = { taskId: string; status: string; pollInterval?: number } & Record<string, unknown>;

/** A 2025-11-25 session through the SDK Client's plain handshake; raw requests through its own request path. */
async function legacyClient(server: TestServer) {
  const client = new Client({ name: 'tasks-list-vs-get', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
  const anyJson = { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) } };
  const raw = (method: string, params: Record<string, unknown>) =>
    client.request({ method, params } as never, anyJson as never) as Promise<any>;
  const startTask = async (name: string, args: Record<string, unknown>) =>
    ((await raw('tools/call', { name, arguments: args, task: {} })).task as LegacyTask).taskId;
  return { client, raw, startTask };
}

async function settled(raw: (m: string, p: Record<string, unknown>) => Promise<any>, taskId: string, status: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const got = (await raw('tasks/get', { taskId })) as LegacyTask;
    if (got.status === status) return;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${got.status}, expected ${status}`);
    await sleep(50);
  }
}

const withoutMeta = ({ _meta: _, ...task }: Record<string, unknown>) => task;
const pick = (o: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(Object.entries(o).filter(([k]) => keys.includes(k)));

test('tasks/list (2025-11-25) shows every field of every task as tasks/get does, on every page', async (t) => {
  // First run: tasks that completed, failed and were cancelled, run by real workers.
  const first = await startTestServer({ MCP_CONFORMANCE_FIXTURES: '1', POLL_INTERVAL_MS: '100', AUTH_TOKENS });
  let firstOpen = true;
  t.after(() => (firstOpen ? first.close() : undefined));
  const a = await legacyClient(first);
  const ended: Record<string, string[]> = { completed: [], failed: [], cancelled: [] };
  for (let i = 0; i < 3; i++) {
    const done = await a.startTask('slow_compute', { seconds: 0, label: `done-${i}` });
    await settled(a.raw, done, 'completed');
    ended.completed.push(done);
    const failed = await a.startTask('protocol_error_job', {});
    await settled(a.raw, failed, 'failed');
    ended.failed.push(failed);
    const cancelled = await a.startTask('slow_compute', { seconds: 600, label: `cancelled-${i}` });
    await a.raw('tasks/cancel', { taskId: cancelled });
    ended.cancelled.push(cancelled);
  }
  await a.client.close();
  await first.close({ keepDatabase: true });
  firstOpen = false;

  // Second run on the same file without workers: the working tasks stay queued, so each one's poll
  // interval (from its place in the queue: 100 ms per task ahead) holds still between list and get.
  const server = await startTestServer(
    { MCP_CONFORMANCE_FIXTURES: '1', POLL_INTERVAL_MS: '100', WORKERS: '0', AUTH_TOKENS },
    first.databasePath,
  );
  t.after(() => server.close());
  const b = await legacyClient(server);
  t.after(() => b.client.close());
  const working: string[] = [];
  for (let i = 0; i < 60; i++) working.push(await b.startTask('slow_compute', { seconds: 600, label: `queued-${i}` }));
  for (const taskId of working.filter((_, i) => i % 10 === 5)) {
    await b.raw('tasks/cancel', { taskId });
    ended.cancelled.push(taskId);
  }
  // A queued task's place is read from a snapshot of the queue at most 250 ms old: let the one taken
  // before the last cancel lapse, so list and get both see the queue as it now stands.
  await sleep(300);

  const listed: LegacyTask[] = [];
  let pages = 0;
  let cursor: string | undefined;
  do {
    const page = await b.raw('tasks/list', cursor === undefined ? {} : { cursor });
    pages++;
    listed.push(...(page.tasks as LegacyTask[]));
    cursor = page.nextCursor as string | undefined;
  } while (cursor !== undefined);

  assert.ok(pages >= 2, 'the listing spans pages');
  assert.equal(listed.length, 9 + 60, 'every task, once');
  assert.equal(new Set(listed.map((x) => x.taskId)).size, listed.length);
  for (const [status, ids] of Object.entries(ended))
    for (const taskId of ids) assert.equal(listed.find((x) => x.taskId === taskId)?.status, status, taskId);
  assert.equal(listed.filter((x) => x.status === 'working').length, 60 - 6);

  for (const task of listed) {
    const got = (await b.raw('tasks/get', { taskId: task.taskId })) as LegacyTask;
    assert.deepEqual(task, withoutMeta(got), `tasks/list and tasks/get disagree on ${task.status} task ${task.taskId}`);
    // The 2026-07-28 tasks/get of the same row agrees on every field the two revisions share.
    const modern = (await rpc(server.mcpUrl, 'tasks/get', { taskId: task.taskId }, { token: TOKEN })).body.result;
    const { ttlMs, pollIntervalMs, ...same } = modern;
    assert.deepEqual(
      {
        ...pick(same, ['taskId', 'status', 'statusMessage', 'createdAt', 'lastUpdatedAt']),
        ttl: ttlMs,
        pollInterval: pollIntervalMs,
      },
      task,
      `2025-11-25 and 2026-07-28 disagree on ${task.status} task ${task.taskId}`,
    );
  }
  // Queued tasks are told to wait longer the further back they are: distinct intervals, none an index.
  const queued = listed.filter((x) => x.status === 'working').map((x) => x.pollInterval);
  assert.equal(new Set(queued).size, queued.length);
  assert.ok(
    queued.every((ms) => ms !== undefined && ms >= 100),
    'every queued poll interval is at least the base',
  );
});
