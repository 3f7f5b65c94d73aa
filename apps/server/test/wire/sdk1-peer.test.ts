// The bench's peer (apps/server/bench/sdk1-peer-server.ts): the official TypeScript SDK 1.x server
// with its experimental tasks, as its own process. The official 1.x Client creates a task on it and
// follows it over the 2025-11-25 wire; the bench's own 2025-11-25 requests and answer checks hold
// against the peer and against ours; and a short run of the peer phase's loads sees no failure.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { create2025, get2025, sdk1PeerTarget } from '../../bench/peer-phase.ts';
import { parseMcpBody } from '../../harness/mcp-wire.ts';
import { startSdk1Peer } from '../../bench/sdk1-peer.ts';
import { body2025, isCreateTaskResult2025, isWorkingTask2025, openSession2025 } from '../../bench/wire-2025.ts';
import { startTestServer } from '../helpers/test-server.ts';

const ARGS = { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20', dry_run: true };

test('the SDK 1.x peer: the official 1.x Client creates a task, sees it working, then completed with its result', async (t) => {
  const peer = await startSdk1Peer({ workMs: 600_000 });
  t.after(() => peer.stop());
  const client = new Client({ name: 'sdk1-peer-test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(peer.mcpUrl)));
  t.after(() => client.close());
  assert.equal((client.transport as StreamableHTTPClientTransport).protocolVersion, '2025-11-25');
  assert.deepEqual(client.getServerCapabilities()?.tasks?.requests, { tools: { call: {} } });
  const delay = (await client.listTools()).tools.find((tool) => tool.name === 'delay');
  assert.equal(delay?.execution?.taskSupport, 'required');

  // The default work (the bench's) outlasts the test: the task stays working.
  const long = await client.request(
    { method: 'tools/call', params: { name: 'delay', arguments: {}, task: {} } },
    CreateTaskResultSchema,
  );
  assert.equal(long.task.status, 'working');
  assert.equal((await client.experimental.tasks.getTask(long.task.taskId)).status, 'working');

  const short = await client.request(
    { method: 'tools/call', params: { name: 'delay', arguments: { duration: 200 }, task: {} } },
    CreateTaskResultSchema,
  );
  const deadline = Date.now() + 10_000;
  let status = short.task.status;
  while (status === 'working' && Date.now() < deadline) {
    await sleep(50);
    status = (await client.experimental.tasks.getTask(short.task.taskId)).status;
  }
  assert.equal(status, 'completed');
  const result = await client.experimental.tasks.getTaskResult(short.task.taskId, CallToolResultSchema);
  assert.deepEqual(result.content, [{ type: 'text', text: 'Completed 200ms delay' }]);
  assert.equal((await client.experimental.tasks.getTask(long.task.taskId)).status, 'working', 'still working');
});

test("the bench's 2025-11-25 requests: both servers answer a CreateTaskResult and a working task; other answers fail the checks", async (t) => {
  const peer = await startSdk1Peer({ workMs: 600_000 });
  t.after(() => peer.stop());
  const ours = await startTestServer({ WORKERS: '0' });
  t.after(() => ours.close());
  for (const [server, tool, args] of [
    [peer.mcpUrl, 'delay', {}],
    [ours.mcpUrl, 'reflow_month', ARGS],
  ] as const) {
    const session = await openSession2025(server);
    // Both keep a 2025-11-25 session per initialize (ours: the delivery channel of notifications/tasks/status).
    assert.ok('mcp-session-id' in session.headers, 'both servers issue a session id');
    const post = async (method: string, params: Record<string, unknown>, id: number) =>
      (await fetch(server, { method: 'POST', headers: session.headers, body: body2025(method, params, id) })).text();
    const created = await post('tools/call', { name: tool, arguments: args, task: {} }, 2);
    assert.ok(isCreateTaskResult2025(created), created);
    assert.ok(!isWorkingTask2025(created), 'a CreateTaskResult is not a tasks/get answer');
    const taskId = parseMcpBody(created)!.result.task.taskId as string;
    const got = await post('tasks/get', { taskId }, 3);
    assert.ok(isWorkingTask2025(got), got);
    assert.ok(!isCreateTaskResult2025(got), 'a task is not a CreateTaskResult');
    const unknown = await post('tasks/get', { taskId: 'no-such-task' }, 4);
    assert.ok(!isWorkingTask2025(unknown), unknown);
    const synchronous = await post('tools/call', { name: 'list_rooms', arguments: {} }, 5);
    assert.ok(!isCreateTaskResult2025(synchronous), synchronous);
  }
});

test("a short run of the peer phase's loads against the peer: requests answered, none failed", async () => {
  const options = { seconds: 1, warmupSeconds: 0, pollers: 10 };
  const created = await create2025(sdk1PeerTarget, 10, options);
  assert.ok(created.requests > 0, JSON.stringify(created));
  assert.equal(created.failed, 0, JSON.stringify(created));
  const polled = await get2025(sdk1PeerTarget, options);
  assert.ok(polled.requests > 0, JSON.stringify(polled));
  assert.equal(polled.failed, 0, JSON.stringify(polled));
});
