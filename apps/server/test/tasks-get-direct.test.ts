// tasks/get answered directly (without a per-request MCP server) must be the SDK path's answer, in
// every state a task can be in; anything the direct path is unsure of still goes through the SDK.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call } from './approval-helper.ts';
import { rpc, startTestServer, waitForTaskStatus } from './helper.ts';

const SEPT = { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20' };

const metric = async (url: string, path: 'direct' | 'sdk') => {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`reflow_mcp_requests_total{method="tasks/get",path="${path}"} `));
  return line ? Number(line.split(' ').pop()) : 0;
};

test('completed, input_required, working and cancelled tasks read the same directly as through the SDK', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  const start = async (args: Record<string, unknown>) => {
    const { body } = await call(server.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: args });
    assert.equal(body.result?.resultType, 'task', JSON.stringify(body));
    return body.result.taskId as string;
  };
  const completed = await start({ ...SEPT, dry_run: true });
  await waitForTaskStatus(server.mcpUrl, completed, ['completed']);
  // A gated reflow parks holding its rooms and days: a real one over the same days queues behind it.
  const parked = await start({ ...SEPT, confirm: true });
  await waitForTaskStatus(server.mcpUrl, parked, ['input_required']);
  const queued = await start({ ...SEPT, from: '2026-09-08' });
  const cancelled = await start({ ...SEPT, from: '2026-09-09' });
  assert.equal((await rpc(server.mcpUrl, 'tasks/cancel', { taskId: cancelled })).body.result?.resultType, 'complete');

  const directBefore = await metric(server.url, 'direct');
  const sdkBefore = await metric(server.url, 'sdk');
  for (const [taskId, status] of [
    [completed, 'completed'],
    [parked, 'input_required'],
    [queued, 'working'],
    [cancelled, 'cancelled'],
  ]) {
    const direct = (await rpc(server.mcpUrl, 'tasks/get', { taskId })).body;
    // An extra parameter the direct path does not take: the SDK answers (its params schema lets it through).
    const viaSdk = (await rpc(server.mcpUrl, 'tasks/get', { taskId, 'x-trace': 'compare' })).body;
    assert.equal(direct.result?.status, status, JSON.stringify(direct));
    assert.deepEqual(direct, viaSdk, `${status}: the direct answer differs from the SDK's`);
  }
  assert.equal((await metric(server.url, 'direct')) - directBefore, 4, 'each plain poll was answered directly');
  assert.equal(
    (await metric(server.url, 'sdk')) - sdkBefore,
    4,
    'each poll with an extra parameter went through the SDK',
  );
});

test('what the direct path does not answer keeps the SDK answer: unknown task, another owner, no extension, mismatched header, wrong media type', async (t) => {
  const server = await startTestServer({
    AUTH_TOKENS: 'alice:client:tok-alice-0123456789,bob:client:tok-bob-0123456789',
  });
  t.after(() => server.close());
  const alice = { token: 'tok-alice-0123456789' };
  const created = await rpc(
    server.mcpUrl,
    'tools/call',
    { name: 'reflow_month', arguments: { ...SEPT, dry_run: true } },
    alice,
  );
  const taskId = created.body.result.taskId as string;
  assert.equal((await rpc(server.mcpUrl, 'tasks/get', { taskId }, alice)).body.result?.taskId, taskId);

  const unknown = await rpc(server.mcpUrl, 'tasks/get', { taskId: 'tsk_does_not_exist' }, alice);
  assert.equal(unknown.body.error?.code, -32602);
  const otherOwner = await rpc(server.mcpUrl, 'tasks/get', { taskId }, { token: 'tok-bob-0123456789' });
  assert.deepEqual(otherOwner.body.error, unknown.body.error && { ...unknown.body.error, data: { taskId } });
  const undeclared = await rpc(server.mcpUrl, 'tasks/get', { taskId }, { ...alice, tasks: false });
  assert.equal(undeclared.body.error?.code, -32021, JSON.stringify(undeclared.body));
  const mismatched = await rpc(
    server.mcpUrl,
    'tasks/get',
    { taskId },
    { ...alice, headers: { 'mcp-name': 'tsk_other' } },
  );
  assert.equal(mismatched.status, 400);
  assert.equal(mismatched.body.error?.code, -32020, JSON.stringify(mismatched.body));
  const plainText = await rpc(
    server.mcpUrl,
    'tasks/get',
    { taskId },
    { ...alice, headers: { 'content-type': 'text/plain' } },
  );
  assert.equal(plainText.status, 415, "the media type is the SDK's to refuse, as for any other request");
});
