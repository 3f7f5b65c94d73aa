// The operator-approval wait is rows, not memory: SIGKILL the server while an agent's reflow waits,
// start it again on the same file, and the reflow still waits; approve it and it applies.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startServerProcess, type ServerProcess } from '../../harness/server-process.ts';
import {
  AGENT,
  api,
  APPROVAL_ENV,
  bookingsChecksum,
  startReflowAs,
  waitAsAgent,
  waitUntilAwaitingOperator,
} from '../helpers/operator-approval-helper.ts';
import { rpc } from '../helpers/test-server.ts';

test('SIGKILL while waiting for an operator: after a restart it still waits, and approving applies it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'reflow-approval-kill-'));
  const databasePath = join(dir, 'reflow.db');
  const servers: ServerProcess[] = [];
  t.after(async () => {
    for (const s of servers) if (!s.dead) await s.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  const env = APPROVAL_ENV;
  const first = await startServerProcess(databasePath, env, true);
  servers.push(first);
  const taskId = await startReflowAs(first.mcpUrl, AGENT);
  await waitUntilAwaitingOperator(first.mcpUrl, taskId);
  const before = await bookingsChecksum(databasePath);
  assert.equal(await first.kill(), 'SIGKILL');

  const second = await startServerProcess(databasePath, env, true);
  servers.push(second);
  const baseUrl = second.mcpUrl.replace(/\/mcp$/, '');
  const still = await waitUntilAwaitingOperator(second.mcpUrl, taskId, 5_000);
  assert.equal(still.status, 'working');
  assert.equal(await bookingsChecksum(databasePath), before, 'nothing applied across the restart');
  const listed = await api(baseUrl, 'GET', '/api/tasks?awaiting=operator');
  assert.deepEqual(
    listed.body.tasks.map((x: any) => x.taskId),
    [taskId],
  );

  assert.equal((await api(baseUrl, 'POST', `/api/tasks/${taskId}/approve`, {})).status, 200);
  const done = await waitAsAgent(second.mcpUrl, taskId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.equal(done.result.structuredContent.applied, true);
  assert.equal(done.result.structuredContent.operatorDecision.by, 'ops');
  assert.ok(done.result.structuredContent.moved > 0);
  assert.notEqual(await bookingsChecksum(databasePath), before);
  // The agent's own view agrees.
  const polled = (await rpc(second.mcpUrl, 'tasks/get', { taskId }, { token: AGENT })).body.result;
  assert.equal(polled.status, 'completed');
});
