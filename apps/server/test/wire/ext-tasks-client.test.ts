// End to end with the OFFICIAL Tasks client (@modelcontextprotocol/ext-tasks 0.2.x) over the real
// SDK Client + StreamableHTTPClientTransport, era pinned to 2026-07-28. The session wiring
// (rawDispatch + v2RequestFraming, which the package requires for a 2026-07-28 Tasks server)
// lives in apps/server/harness/ext-tasks-session.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { startTestServer } from '../helpers/test-server.ts';
import { connectExtTasksSession } from '../../harness/ext-tasks-session.ts';

/** Outcome as text, with the error's cause chain (a client-side decode failure hides there). */
function describe(outcome: unknown): string {
  const o = outcome as { status: string; error?: Error };
  const causes: string[] = [];
  for (let e: any = o.error; e; e = e.cause)
    causes.push(`${e.name}: ${e.issues ? JSON.stringify(e.issues) : e.message}`);
  return `${o.status}${causes.length ? ` <- ${causes.join(' <- ')}` : ''}`;
}

const REFLOW_ARGS = {
  month: '2026-09',
  offline_rooms: ['studio-b'],
  from: '2026-09-07',
  to: '2026-09-20',
};

test('official ext-tasks client: reflow_month becomes a task and settles to a completed result', async (t) => {
  const server = await startTestServer({ POLL_INTERVAL_MS: '100' });
  t.after(() => server.close());
  const conn = await connectExtTasksSession(server.mcpUrl);
  t.after(() => conn.close());

  assert.equal(conn.client.getProtocolEra(), 'modern');
  assert.equal(conn.client.getNegotiatedProtocolVersion(), '2026-07-28');
  assert.equal(conn.session.capabilities.execution, true, 'server advertised the tasks extension');

  const execution = await conn.session.callTool('reflow_month', REFLOW_ARGS);
  assert.equal(execution.kind, 'task', 'reflow_month from a declaring client must become a task');
  assert.ok(execution.handle);
  assert.match(execution.handle.taskId, /^tsk_/);

  const { outcome, lastTask } = await execution.settle();
  assert.equal(outcome.status, 'completed', `outcome: ${describe(outcome)}`);
  if (lastTask) assert.equal(lastTask.status, 'completed');

  const result = resultFromTaskOutcome(outcome) as { isError?: boolean; structuredContent?: Record<string, unknown> };
  assert.notEqual(result.isError, true);
  const sc = result.structuredContent as { moved: number; unresolved: number; affected: number };
  assert.ok(sc, 'completed result carries structuredContent');
  assert.equal(typeof sc.moved, 'number');
  assert.equal(typeof sc.unresolved, 'number');
  assert.equal(sc.affected, 142);
  assert.equal(sc.moved + sc.unresolved, sc.affected);
});

test('official ext-tasks client: execution.cancel() ends the task cancelled', async (t) => {
  // No workers: the task waits queued, so the cancel always meets it working (with workers, the demo
  // month's solve could end before the cancel arrives on a loaded machine).
  const server = await startTestServer({ POLL_INTERVAL_MS: '100', WORKERS: '0' });
  t.after(() => server.close());
  const conn = await connectExtTasksSession(server.mcpUrl);
  t.after(() => conn.close());

  assert.equal(conn.session.capabilities.cancellation, true, 'V2 sessions support cancellation');

  const execution = await conn.session.callTool('reflow_month', REFLOW_ARGS);
  assert.equal(execution.kind, 'task');
  const taskId = execution.handle.taskId;
  assert.match(taskId, /^tsk_/);

  // Cancel right away: the official client sends tasks/cancel and records the cancellation.
  await execution.cancel();

  const { outcome } = await execution.settle();
  assert.equal(outcome.status, 'cancelled', `outcome: ${describe(outcome)}`);

  // The server agrees: a fresh tasks/get through the same session shows the task cancelled.
  const view = await conn.session.task(taskId).snapshot();
  assert.equal(view.taskId, taskId);
  assert.equal(view.status, 'cancelled');
});
