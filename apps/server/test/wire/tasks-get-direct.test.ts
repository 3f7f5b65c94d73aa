// tasks/get answered directly (without a per-request MCP server) must be the SDK path's answer, in
// every state a task can be in; anything the direct path is unsure of still goes through the SDK.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { call } from '../helpers/approval-helper.ts';
import { mcpHeaders } from '../../harness/mcp-wire.ts';
import { PROTOCOL_VERSION, rpc, startTestServer, TASKS, waitForTaskStatus } from '../helpers/test-server.ts';
import { requestsCounted } from './direct-answer-checks.ts';
import { closeRawAgent, rawPost } from '../helpers/raw-http.ts';

const SEPT = { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20' };

after(() => closeRawAgent());

const metric = (url: string, path: 'direct' | 'sdk') => requestsCounted(url, 'tasks/get', path);

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

test('invalid JSON-RPC around a plain poll gets the same answer on the direct path as through the SDK', async (t) => {
  const direct = await startTestServer();
  const sdkOnly = await startTestServer({ MCP_FAST_TASKS_GET: 'false' });
  t.after(() => Promise.all([direct.close(), sdkOnly.close()]));
  const startOn = async (server: typeof direct) => {
    const { body } = await call(server.mcpUrl, 'tools/call', {
      name: 'reflow_month',
      arguments: { ...SEPT, dry_run: true },
    });
    return body.result.taskId as string;
  };
  const ids = new Map([
    [direct, await startOn(direct)],
    [sdkOnly, await startOn(sdkOnly)],
  ]);
  const meta = {
    'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
    'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
  };
  const forms: Record<string, (taskId: string) => Record<string, unknown>> = {
    'an extra top-level member': (taskId) => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'tasks/get',
      params: { taskId, _meta: meta },
      extra: true,
    }),
    'result beside method': (taskId) => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'tasks/get',
      params: { taskId, _meta: meta },
      result: {},
    }),
    'error beside method': (taskId) => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'tasks/get',
      params: { taskId, _meta: meta },
      error: { code: 1, message: 'x' },
    }),
    'a fractional id': (taskId) => ({ jsonrpc: '2.0', id: 1.5, method: 'tasks/get', params: { taskId, _meta: meta } }),
    'an id past the safe integers': (taskId) => ({
      jsonrpc: '2.0',
      id: 1e300,
      method: 'tasks/get',
      params: { taskId, _meta: meta },
    }),
  };
  // A valid poll first, as a polling client sends them: whatever the direct path learns from it
  // must not carry over to a malformed request with the same headers and envelope.
  for (const [server, taskId] of ids) assert.ok((await rpc(server.mcpUrl, 'tasks/get', { taskId })).body.result);
  const metricBefore = await metric(direct.url, 'direct');
  for (const [label, form] of Object.entries(forms)) {
    const answers = [];
    for (const server of [direct, sdkOnly]) {
      const taskId = ids.get(server)!;
      const res = await rawPost(server.mcpUrl, mcpHeaders('tasks/get', taskId), JSON.stringify(form(taskId)));
      answers.push({
        status: res.status,
        body: JSON.parse(JSON.stringify(res.json ?? res.text).replaceAll(taskId, '<task>')),
      });
    }
    assert.deepEqual(answers[0], answers[1], `${label}: the direct path answers differently from the SDK`);
    assert.notEqual(answers[0].body?.result?.status, 'working', `${label}: must not be answered as a valid poll`);
  }
  assert.equal(await metric(direct.url, 'direct'), metricBefore, 'none was answered directly');
});
