// The 2025-11-25 task API as that revision words it, over the SDK Client's plain 2025 handshake:
// a tool result with isError ends `failed`; task-only tools are advertised "required" and refuse a
// synchronous call with -32601; confirm is refused for what it is (this API cannot carry the
// question), not for a capability the client declared; tasks/result on a task waiting for input
// answers at once; a start that refuses its arguments answers -32602 with the refusal; tasks.list is
// declared only where requestors are told apart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { call } from '../helpers/approval-helper.ts';
import { startTestServer, taskCount, waitForTaskStatus } from '../helpers/test-server.ts';

const ARGS = { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20' };
const anyJson = { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) } };

async function legacyClient(url: string, options: { capabilities?: Record<string, unknown>; token?: string } = {}) {
  const client = new Client({ name: 'legacy-2025', version: '0.0.0' }, { capabilities: options.capabilities ?? {} });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      ...(options.token ? { requestInit: { headers: { authorization: `Bearer ${options.token}` } } } : {}),
    }),
  );
  assert.equal(client.getProtocolEra(), 'legacy');
  const raw = (method: string, params: Record<string, unknown>) =>
    client.request({ method, params } as never, anyJson as never) as Promise<any>;
  return { client, raw };
}

async function settled(raw: (m: string, p: Record<string, unknown>) => Promise<any>, taskId: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const task = await raw('tasks/get', { taskId });
    if (['completed', 'failed', 'cancelled'].includes(task.status) || Date.now() > deadline) return task;
    await sleep(100);
  }
}

test('2025-11-25: a task whose tool result has isError: true ends failed; tasks/result answers that result', async (t) => {
  const server = await startTestServer({ MCP_CONFORMANCE_FIXTURES: '1', POLL_INTERVAL_MS: '100' });
  t.after(() => server.close());
  const { client, raw } = await legacyClient(server.mcpUrl);
  t.after(() => client.close());
  const created = await raw('tools/call', { name: 'failing_job', arguments: {}, task: {} });
  const taskId = created.task.taskId;
  const end = await settled(raw, taskId);
  assert.equal(end.status, 'failed', JSON.stringify(end));
  const result = await raw('tasks/result', { taskId });
  assert.equal(result.isError, true, 'the result is exactly what the call returned');
  assert.deepEqual(result._meta['io.modelcontextprotocol/related-task'], { taskId });
  // The extension keeps such a task completed (SEP-2663: failed is for JSON-RPC errors only).
  const modern = await call(server.mcpUrl, 'tasks/get', { taskId });
  assert.equal(modern.body.result.status, 'completed');
});

test('2025-11-25: a task-only tool is advertised taskSupport "required" and refuses a synchronous call with -32601', async (t) => {
  const server = await startTestServer({ MCP_CONFORMANCE_FIXTURES: '1' });
  t.after(() => server.close());
  const { client, raw } = await legacyClient(server.mcpUrl);
  t.after(() => client.close());
  const tools = (await client.listTools()).tools;
  assert.deepEqual(tools.find((x) => x.name === 'failing_job')?.execution, { taskSupport: 'required' });
  assert.deepEqual(tools.find((x) => x.name === 'reflow_month')?.execution, { taskSupport: 'optional' });
  const sync = await raw('tools/call', { name: 'failing_job', arguments: {} }).catch((e) => e);
  assert.equal(sync.code, -32601, JSON.stringify(sync));
  assert.equal(await taskCount(server.services.store), 0);
});

test('2025-11-25: confirm: true from a client that declared elicitation is refused for the task API, not for elicitation', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  const { client, raw } = await legacyClient(server.mcpUrl, { capabilities: { elicitation: { form: {} } } });
  t.after(() => client.close());
  const refused = await raw('tools/call', {
    name: 'reflow_month',
    arguments: { ...ARGS, confirm: true },
    task: {},
  }).catch((e) => e);
  assert.equal(refused.code, -32602, JSON.stringify(refused));
  assert.doesNotMatch(refused.message, /did not declare/);
  assert.match(refused.message, /2025-11-25 task API/);
  assert.match(refused.message, /io\.modelcontextprotocol\/tasks/);
  assert.equal(await taskCount(server.services.store), 0);
});

test('2025-11-25: a task call whose start refuses its arguments (an unknown room) answers -32602 naming it, and creates nothing', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  const { client, raw } = await legacyClient(server.mcpUrl);
  t.after(() => client.close());
  const refused = await raw('tools/call', {
    name: 'reflow_month',
    arguments: { ...ARGS, offline_rooms: ['studio-zz'] },
    task: {},
  }).catch((e) => e);
  assert.equal(refused.code, -32602, JSON.stringify(refused));
  assert.match(refused.message, /RFL_UNKNOWN_ROOM/);
  assert.match(refused.message, /Unknown room studio-zz; known rooms: /);
  assert.equal(await taskCount(server.services.store), 0);
});

test('2025-11-25: tasks/result on a task waiting for input answers at once instead of blocking until the TTL', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  // A task waiting for approval, started through the extension by the same (local) principal.
  const { body } = await call(server.mcpUrl, 'tools/call', {
    name: 'reflow_month',
    arguments: { ...ARGS, confirm: true },
  });
  const taskId = body.result.taskId as string;
  await waitForTaskStatus(server.mcpUrl, taskId, ['input_required']);
  const { client, raw } = await legacyClient(server.mcpUrl);
  t.after(() => client.close());
  const started = Date.now();
  const answer = await Promise.race([
    raw('tasks/result', { taskId }).catch((e) => e),
    sleep(5_000).then(() => 'still blocked after 5 s'),
  ]);
  assert.notEqual(answer, 'still blocked after 5 s');
  assert.equal(answer.code, -32602, JSON.stringify(answer));
  assert.match(answer.message, /waiting for input/);
  assert.ok(Date.now() - started < 5_000);
  assert.equal((await raw('tasks/get', { taskId })).status, 'input_required', 'the task is left as it was');
});

test('2025-11-25: tasks.list is declared and served only where requestors are told apart (tokens)', async (t) => {
  const anonymous = await startTestServer({ WORKERS: '0' });
  t.after(() => anonymous.close());
  const local = await legacyClient(anonymous.mcpUrl);
  t.after(() => local.client.close());
  const caps = local.client.getServerCapabilities() as { tasks?: Record<string, unknown> };
  assert.deepEqual(caps.tasks, { cancel: {}, requests: { tools: { call: {} } } });
  const listed = await local.raw('tasks/list', {}).catch((e) => e);
  assert.equal(listed.code, -32601, JSON.stringify(listed));

  const TOKEN = 'tok-alice-0123456789';
  const authenticated = await startTestServer({ WORKERS: '0', AUTH_TOKENS: `alice:client:${TOKEN}` });
  t.after(() => authenticated.close());
  const alice = await legacyClient(authenticated.mcpUrl, { token: TOKEN });
  t.after(() => alice.client.close());
  const aliceCaps = alice.client.getServerCapabilities() as { tasks?: Record<string, unknown> };
  assert.deepEqual(aliceCaps.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
  const created = await alice.raw('tools/call', { name: 'reflow_month', arguments: ARGS, task: {} });
  const page = await alice.raw('tasks/list', {});
  assert.deepEqual(
    page.tasks.map((x: { taskId: string }) => x.taskId),
    [created.task.taskId],
  );
});
