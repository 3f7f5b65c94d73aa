// The conformance fixtures are off unless asked for, and when on they are real durable tasks: rows
// in the store, parked in input_required until tasks/update answers.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { call } from '../helpers/approval-helper.ts';
import { openTestStore, rpc, startTestServer, waitForTaskStatus, type TestServer } from '../helpers/test-server.ts';
import { testSql } from '../../../../scripts/test-sql.mjs';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const toolNames = async (url: string) =>
  ((await rpc(url, 'tools/list')).body.result.tools as { name: string }[]).map((t) => t.name);

const FIXTURES = [
  'greet',
  'slow_compute',
  'failing_job',
  'protocol_error_job',
  'confirm_delete',
  'multi_input',
  'test_tool_with_task',
];

test('off by default: no fixture tool is listed', async () => {
  server = await startTestServer();
  const names = await toolNames(server.mcpUrl);
  assert.ok(names.includes('reflow_month'));
  assert.deepEqual(
    names.filter((n) => FIXTURES.includes(n) || n.startsWith('test_') || n.startsWith('json_schema')),
    [],
  );
});

test('MCP_CONFORMANCE_FIXTURES=1: fixture tasks are engine rows, and confirm_delete waits for its answer', async () => {
  server = await startTestServer({ MCP_CONFORMANCE_FIXTURES: '1' });
  const names = await toolNames(server.mcpUrl);
  for (const name of FIXTURES) assert.ok(names.includes(name), name);

  const created = await call(server.mcpUrl, 'tools/call', {
    name: 'confirm_delete',
    arguments: { filename: 'notes.txt' },
  });
  const taskId = created.body.result.taskId as string;
  const parked = await waitForTaskStatus(server.mcpUrl, taskId, ['input_required']);
  const [key] = Object.keys(parked.inputRequests);
  assert.equal(parked.inputRequests[key].method, 'elicitation/create');
  // The row as stored, read by a second connection (as another process would).
  const reader = await openTestStore(server.databasePath);
  try {
    const sql = await testSql(reader);
    const row = await sql.get('SELECT kind, status, claimed_by FROM tasks WHERE id = ?', taskId);
    assert.deepEqual(row, { kind: 'conformance.confirm_delete', status: 'input_required', claimed_by: null });
  } finally {
    await reader.close();
  }
  await call(server.mcpUrl, 'tasks/update', {
    taskId,
    inputResponses: { [key]: { action: 'accept', content: { confirm: true } } },
  });
  const done = await waitForTaskStatus(server.mcpUrl, taskId, ['completed', 'failed']);
  assert.equal(done.result.content[0].text, 'Deleted notes.txt');

  const failing = await call(server.mcpUrl, 'tools/call', { name: 'failing_job', arguments: {} }, {});
  assert.equal(failing.body.error?.code, -32021, 'a task-only tool refuses a client without the extension');
});
