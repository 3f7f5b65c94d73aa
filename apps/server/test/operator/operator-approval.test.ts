// APPROVAL=operator over a real socket: an agent's reflow solves, then waits `working` for an
// operator; approve applies it (the agent's poll ends completed with the approver), reject applies
// nothing; every refusal changes no booking; an overlapping reflow waits until the first is decided.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { rpc, startTestServer, type TestServer } from '../helpers/test-server.ts';
import {
  AGENT,
  api,
  APPROVAL_ENV,
  bookingsChecksum,
  OPS,
  startReflowAs,
  waitAsAgent,
  waitUntilAwaitingOperator,
} from '../helpers/operator-approval-helper.ts';

const WAIT_MESSAGE =
  /^Waiting for an operator to approve: \d+ moves, \d+ bookings? unresolved \(reflow studio-b, 7–20 Sep\)$/;
const auditedMoves = async (s: TestServer, taskId: string) => (await s.services.store.audit.movesOf(taskId)).length;

describe('APPROVAL=operator', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ ...APPROVAL_ENV, POLL_INTERVAL_MS: '200' });
  });
  after(async () => s.close());

  test('an agent’s reflow waits working with a sentence and a growing poll interval; approve applies it and names the approver', async () => {
    const before = await bookingsChecksum(s.databasePath);
    const taskId = await startReflowAs(s.mcpUrl, AGENT);
    const waiting = await waitUntilAwaitingOperator(s.mcpUrl, taskId);
    assert.match(waiting.statusMessage, WAIT_MESSAGE);
    assert.equal(waiting.inputRequests, undefined, 'the agent has nothing to answer');
    await sleep(1500);
    const later = (await rpc(s.mcpUrl, 'tasks/get', { taskId }, { token: AGENT })).body.result;
    assert.equal(later.status, 'working');
    assert.ok(later.pollIntervalMs > waiting.pollIntervalMs, `${later.pollIntervalMs} > ${waiting.pollIntervalMs}`);
    assert.equal(await bookingsChecksum(s.databasePath), before, 'nothing is moved while waiting');

    // The console's filter, count and detail: the proposed plan, not applied, no worker held.
    const listed = await api(s.url, 'GET', '/api/tasks?awaiting=operator');
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.tasks.map((t: any) => t.taskId),
      [taskId],
    );
    assert.equal(listed.body.awaitingApproval, 1);
    assert.equal(listed.body.tasks[0].awaitingApproval, true);
    const detail = (await api(s.url, 'GET', `/api/tasks/${taskId}`)).body;
    assert.match(detail.reflow.awaitingApproval.message, WAIT_MESSAGE);
    assert.equal(detail.reflow.summary.applied, false);
    assert.ok(detail.reflow.moves.length > 0);
    assert.equal(detail.reflow.moves.length, detail.reflow.summary.moved);
    assert.equal(s.services.engine.runningCount, 0, 'the wait holds no worker');

    // The agent cannot answer the operator's question, even guessing its key.
    await rpc(
      s.mcpUrl,
      'tasks/update',
      { taskId, inputResponses: { 'r1-decision': { decision: 'approved', by: 'agent' } } },
      { token: AGENT },
    );
    assert.equal((await api(s.url, 'GET', `/api/tasks/${taskId}`)).body.task.awaitingApproval, true);

    const approved = await api(s.url, 'POST', `/api/tasks/${taskId}/approve`, { reason: 'room is needed' });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    const done = await waitAsAgent(s.mcpUrl, taskId);
    assert.equal(done.status, 'completed');
    // The agent's own poll ends with the decision in its result.
    const decision = done.result.structuredContent.operatorDecision;
    assert.equal(decision.decision, 'approved');
    assert.equal(decision.by, 'ops');
    assert.match(done.result.content[0].text, /Approved by operator ops/);
    const final = (await api(s.url, 'GET', `/api/tasks/${taskId}`)).body;
    assert.equal(final.reflow.summary.applied, true);
    assert.equal(final.reflow.operatorDecision.decision, 'approved');
    assert.equal(final.reflow.operatorDecision.by, 'ops');
    assert.equal(final.reflow.operatorDecision.reason, 'room is needed');
    assert.equal(await auditedMoves(s, taskId), final.reflow.summary.moved);
    assert.notEqual(await bookingsChecksum(s.databasePath), before);
    assert.ok(
      final.events.some((e: any) => /^Approved by operator ops/.test(e.message)),
      'the history records who',
    );

    // Deciding again: 409, nothing changes.
    const sum = await bookingsChecksum(s.databasePath);
    for (const [path, body] of [
      ['approve', {}],
      ['reject', { reason: 'late' }],
    ] as const) {
      const again = await api(s.url, 'POST', `/api/tasks/${taskId}/${path}`, body);
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'RFL_NOT_AWAITING_APPROVAL');
    }
    assert.equal(await bookingsChecksum(s.databasePath), sum);
  });

  test('refusals: a client 403, a reject without reason 400, an unknown task 404 — and nothing changes', async () => {
    const taskId = await startReflowAs(s.mcpUrl, AGENT, { from: '2026-09-21', to: '2026-09-27' });
    await waitUntilAwaitingOperator(s.mcpUrl, taskId);
    const before = await bookingsChecksum(s.databasePath);
    const asClient = await api(s.url, 'POST', `/api/tasks/${taskId}/approve`, {}, AGENT);
    assert.equal(asClient.status, 403);
    assert.equal(asClient.body.code, 'RFL_FORBIDDEN');
    for (const body of [undefined, {}, { reason: '   ' }]) {
      const bare = await api(s.url, 'POST', `/api/tasks/${taskId}/reject`, body);
      assert.equal(bare.status, 400, JSON.stringify(bare.body));
    }
    assert.equal((await api(s.url, 'POST', `/api/tasks/${taskId}/reject`, {})).body.code, 'RFL_REASON_REQUIRED');
    assert.equal((await api(s.url, 'POST', '/api/tasks/tsk_nope/approve', {})).status, 404);
    assert.equal(await bookingsChecksum(s.databasePath), before);
    assert.equal((await api(s.url, 'GET', `/api/tasks/${taskId}`)).body.task.awaitingApproval, true);

    const rejected = await api(s.url, 'POST', `/api/tasks/${taskId}/reject`, { reason: 'studio-b is back on Monday' });
    assert.equal(rejected.status, 200);
    const done = await waitAsAgent(s.mcpUrl, taskId);
    assert.equal(done.status, 'completed');
    assert.equal(done.result.structuredContent.applied, false);
    assert.equal(done.result.structuredContent.operatorDecision.reason, 'studio-b is back on Monday');
    const final = (await api(s.url, 'GET', `/api/tasks/${taskId}`)).body;
    assert.equal(final.reflow.summary.applied, false);
    assert.deepEqual(
      {
        decision: final.reflow.operatorDecision.decision,
        by: final.reflow.operatorDecision.by,
        reason: final.reflow.operatorDecision.reason,
      },
      { decision: 'rejected', by: 'ops', reason: 'studio-b is back on Monday' },
    );
    assert.equal(await auditedMoves(s, taskId), 0);
    assert.equal(await bookingsChecksum(s.databasePath), before, 'a rejection applies nothing');
  });

  test('the routes are in the OpenAPI document', async () => {
    const doc: any = await (await fetch(`${s.url}/docs/json`)).json();
    for (const path of [
      '/api/tasks/{id}/approve',
      '/api/tasks/{id}/reject',
      '/api/reflows',
      '/api/tasks/{id}/apply-plan',
      '/api/tasks/{id}/revert',
      '/api/tasks/{id}/changes.csv',
      '/api/tasks/{id}/changes.ics',
    ])
      assert.ok(doc.paths[path], `${path} documented`);
    assert.ok(doc.paths['/api/tasks/{id}/reject'].post.responses['400'], 'the 400 for a missing reason');
    assert.ok(doc.paths['/api/tasks/{id}/approve'].post.responses['409']);
  });

  test('a reflow cancelled while it waits: approving it is a 409 that says it is cancelled, and nothing moves', async () => {
    const taskId = await startReflowAs(s.mcpUrl, AGENT, { from: '2026-09-07', to: '2026-09-09' });
    await waitUntilAwaitingOperator(s.mcpUrl, taskId);
    const before = await bookingsChecksum(s.databasePath);
    assert.equal((await api(s.url, 'POST', `/api/tasks/${taskId}/cancel`)).status, 200);
    const refused = await api(s.url, 'POST', `/api/tasks/${taskId}/approve`, {});
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'RFL_NOT_AWAITING_APPROVAL');
    assert.match(refused.body.error, /it is cancelled/);
    assert.equal(await bookingsChecksum(s.databasePath), before);
  });

  test('dry runs and an operator’s own reflows do not wait; deciding them is a 409', async () => {
    const dry = await startReflowAs(s.mcpUrl, AGENT, { dry_run: true });
    assert.equal((await waitAsAgent(s.mcpUrl, dry)).status, 'completed');
    const before = await bookingsChecksum(s.databasePath);
    const refused = await api(s.url, 'POST', `/api/tasks/${dry}/approve`, {});
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'RFL_NOT_AWAITING_APPROVAL');
    assert.equal(await bookingsChecksum(s.databasePath), before);
    const own = await startReflowAs(s.mcpUrl, OPS, { from: '2026-09-01', to: '2026-09-03' });
    const done = await waitForOps(s, own);
    assert.equal(done.status, 'completed');
    assert.equal((await api(s.url, 'GET', `/api/tasks/${own}`)).body.reflow.summary.applied, true);
  });

  test('two overlapping reflows, the first awaiting approval: the second waits until the first is decided', async () => {
    const first = await startReflowAs(s.mcpUrl, AGENT, { from: '2026-09-14', to: '2026-09-18' });
    await waitUntilAwaitingOperator(s.mcpUrl, first);
    const second = await startReflowAs(s.mcpUrl, OPS, { from: '2026-09-16', to: '2026-09-19' });
    await sleep(1500);
    const held = (await api(s.url, 'GET', `/api/tasks/${second}`)).body.task;
    assert.equal(held.status, 'working');
    assert.equal(held.startedAt, null, 'the second has not started');
    assert.equal(
      (await api(s.url, 'POST', `/api/tasks/${first}/reject`, { reason: 'overlaps a newer plan' })).status,
      200,
    );
    assert.equal((await waitForOps(s, second)).status, 'completed');
    const firstDone = (await api(s.url, 'GET', `/api/tasks/${first}`)).body.task;
    assert.ok(Date.parse(held.createdAt) <= Date.parse(firstDone.finishedAt));
    const secondDone = (await api(s.url, 'GET', `/api/tasks/${second}`)).body.task;
    assert.ok(Date.parse(secondDone.startedAt) >= Date.parse(firstDone.finishedAt), 'started after the decision');
  });
});

function waitForOps(s: TestServer, taskId: string) {
  return import('../helpers/test-server.ts').then((h) =>
    h.waitForTaskStatus(s.mcpUrl, taskId, ['completed', 'failed', 'cancelled'], 60_000, { token: OPS }),
  );
}
