// 2025-era clients that use the 2025-11-25 task API: the OFFICIAL ext-tasks client in its V1 mode,
// over the SDK Client's plain 2025 handshake (initialize), gets durable tasks from the same store:
// params.task on tools/call, tasks/get, tasks/result, tasks/list (the caller's own), tasks/cancel.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { extTasksConnection } from '../../harness/ext-tasks-session.ts';
import { startTestServer } from '../helpers/test-server.ts';

const ARGS = { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20' };

// tasks/list is served only where callers are told apart: these sessions authenticate.
const TOKEN = 'tok-alice-0123456789';
const AUTH_TOKENS = `alice:client:${TOKEN}`;

async function legacySession(url: string) {
  const client = new Client({ name: 'ext-tasks-v1-e2e', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  return extTasksConnection(client, createTaskSessionFromClient(client, { endpointId: url }));
}

test('ext-tasks in 2025-11-25 mode: reflow_month runs as a task and settles to the same result', async (t) => {
  const server = await startTestServer({ POLL_INTERVAL_MS: '100', AUTH_TOKENS });
  t.after(() => server.close());
  const conn = await legacySession(server.mcpUrl);
  t.after(() => conn.close());

  assert.equal(conn.client.getProtocolEra(), 'legacy');
  const caps = conn.client.getServerCapabilities() as { tasks?: unknown; extensions?: unknown };
  assert.deepEqual(caps.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
  const listed = await conn.client.listTools();
  assert.deepEqual(listed.tools.find((x) => x.name === 'reflow_month')?.execution, { taskSupport: 'optional' });
  assert.equal(listed.tools.find((x) => x.name === 'list_rooms')?.execution, undefined);

  const execution = await conn.session.callTool('reflow_month', ARGS, { task: { preference: 'require' } });
  assert.equal(execution.kind, 'task');
  const taskId = execution.handle.taskId;
  assert.match(taskId, /^tsk_[0-9a-f]{40}$/);

  const { outcome } = await execution.settle();
  assert.equal(outcome.status, 'completed');
  const result = resultFromTaskOutcome(outcome) as unknown as {
    structuredContent: { affected: number; moved: number; unresolved: number };
    _meta?: Record<string, unknown>;
  };
  assert.equal(result.structuredContent.affected, 142);
  assert.equal(result.structuredContent.moved + result.structuredContent.unresolved, 142);

  // The same durable row the 2026-07-28 extension would read.
  const row = (await server.services.engine.get(taskId))!;
  assert.equal(row.status, 'completed');
  assert.deepEqual(result.structuredContent, JSON.parse(row.result!).structuredContent);

  // tasks/list shows the caller's task.
  const inventory = await conn.session.listTasks();
  assert.ok(
    inventory.tasks.some((x: { taskId: string }) => x.taskId === taskId),
    'tasks/list includes the task',
  );
});

test('ext-tasks in 2025-11-25 mode: cancel, and the raw 2025-11-25 shapes and errors', async (t) => {
  const server = await startTestServer({ WORKERS: '0', POLL_INTERVAL_MS: '100', AUTH_TOKENS });
  t.after(() => server.close());
  const conn = await legacySession(server.mcpUrl);
  t.after(() => conn.close());

  const execution = await conn.session.callTool('reflow_month', ARGS, { task: { preference: 'require' } });
  const taskId = execution.handle!.taskId;
  await execution.cancel();
  const { outcome } = await execution.settle();
  assert.equal(outcome.status, 'cancelled');
  assert.equal((await server.services.engine.get(taskId))!.status, 'cancelled');

  // The wire itself, through the SDK client's own request path (2025 era, no per-request _meta).
  const anyJson = { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) } };
  const raw = (method: string, params: Record<string, unknown>) =>
    conn.client.request({ method, params } as never, anyJson as never) as Promise<any>;
  const got = await raw('tasks/get', { taskId });
  assert.deepEqual(
    Object.keys(got)
      .filter((k) => k !== '_meta')
      .sort(),
    ['createdAt', 'lastUpdatedAt', 'pollInterval', 'status', 'statusMessage', 'taskId', 'ttl'],
  );
  assert.equal(got.status, 'cancelled');
  assert.equal(got.ttl, 86_400_000);

  await assert.rejects(
    raw('tasks/cancel', { taskId }),
    (e: { code: number; message: string }) => e.code === -32602 && /already ended cancelled/.test(e.message),
  );
  await assert.rejects(raw('tasks/get', { taskId: 'tsk_nope' }), (e: { code: number }) => e.code === -32602);
  await assert.rejects(raw('tasks/list', { cursor: 'not-a-cursor' }), (e: { code: number }) => e.code === -32602);
  const call = await raw('tools/call', { name: 'list_rooms', arguments: {}, task: {} }).catch((e) => e);
  assert.equal(call.code, -32601, 'a tool without task support refuses params.task');

  // tasks/list is the caller's own, a page at a time; another principal's task does not exist for it.
  const input = (i: number) => ({
    month: '2026-09',
    offlineRooms: ['studio-b'],
    from: '2026-09-01',
    to: `2026-09-${String(i).padStart(2, '0')}`,
    dryRun: true,
  });
  const { task: foreign } = await server.services.engine.create({
    owner: 'someone-else',
    kind: 'reflow_month',
    input: input(1),
  });
  for (let i = 2; i <= 25; i++)
    await server.services.engine.create({ owner: 'alice', kind: 'reflow_month', input: input(i) });
  for (let i = 1; i <= 30; i++)
    await server.services.engine.create({
      owner: 'alice',
      kind: 'reflow_month',
      input: { ...input(i), dryRun: false },
    });
  const first = await raw('tasks/list', {});
  assert.equal(first.tasks.length, 50);
  assert.ok(first.nextCursor, 'more than a page');
  const second = await raw('tasks/list', { cursor: first.nextCursor });
  assert.equal(second.nextCursor, undefined);
  const ids = [...first.tasks, ...second.tasks].map((x: { taskId: string }) => x.taskId);
  assert.equal(ids.length, 1 + 24 + 30, 'every task of the caller, once');
  assert.equal(new Set(ids).size, ids.length);
  assert.ok(ids.includes(taskId));
  assert.ok(!ids.includes(foreign.id), "another principal's task is not listed");
  await assert.rejects(raw('tasks/get', { taskId: foreign.id }), (e: { code: number }) => e.code === -32602);
  await assert.rejects(raw('tasks/cancel', { taskId: foreign.id }), (e: { code: number }) => e.code === -32602);
  assert.equal((await server.services.engine.get(foreign.id))!.status, 'working', 'and it cannot be cancelled by them');
});
