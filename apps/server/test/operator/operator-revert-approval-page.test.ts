// A client's revert under APPROVAL=operator waits for an operator exactly as its reflow did, and
// the console decides it the same way, in real headless Chromium: the revert is listed as awaiting,
// its detail says what approving puts back, nothing moves before the confirm, and approving from
// the page puts every moved booking back and ends the agent's poll completed, naming the approver.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { launchBrowser, watchForErrors } from '../helpers/browser-helper.ts';
import { rpc, startTestServer } from '../helpers/test-server.ts';
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

test("a client's revert awaiting approval is approved from the console and puts the bookings back", async (t) => {
  const server = await startTestServer({ ...APPROVAL_ENV, POLL_INTERVAL_MS: '300' });
  t.after(() => server.close());
  const reflowId = await startReflowAs(server.mcpUrl, AGENT, { from: '2026-09-08', to: '2026-09-09' });
  await waitUntilAwaitingOperator(server.mcpUrl, reflowId);
  assert.equal((await api(server.url, 'POST', `/api/tasks/${reflowId}/approve`, {})).status, 200);
  const reflow = await waitAsAgent(server.mcpUrl, reflowId);
  const moves: { bookingId: string; fromRoom: string }[] = reflow.result.structuredContent.moves;
  assert.ok(moves.length > 0, 'the reflow moved bookings');

  const asked = await rpc(
    server.mcpUrl,
    'tools/call',
    { name: 'revert_reflow', arguments: { taskId: reflowId } },
    { token: AGENT },
  );
  assert.equal(asked.body.result?.resultType, 'task', JSON.stringify(asked.body));
  const revertId: string = asked.body.result.taskId;
  await waitUntilAwaitingOperator(server.mcpUrl, revertId);
  const detailed = (await api(server.url, 'GET', `/api/tasks/${revertId}`)).body;
  assert.match(
    detailed.approval?.message ?? '',
    new RegExp(`^Waiting for an operator to approve: revert reflow ${reflowId}`),
  );
  assert.equal(detailed.reflow, null, 'a revert has no reflow section');
  const before = await bookingsChecksum(server.databasePath);

  const browser = await launchBrowser(t);
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors = watchForErrors(page, (line) => t.diagnostic(line));
  await page.addInitScript((token) => (globalThis as any).sessionStorage.setItem('reflow.operatorToken', token), OPS);
  await page.goto(`${server.url}/ui/#task=${revertId}`);
  await page.locator('[data-count="awaiting"] .chip-n', { hasText: '1' }).waitFor({ timeout: 15_000 });
  const detail = page.locator('#detail');
  await detail.locator('h2', { hasText: 'Revert a reflow' }).waitFor({ timeout: 15_000 });
  const panel = detail.locator('.approval');
  await panel.waitFor({ timeout: 15_000 });
  assert.match(await panel.locator('.approval-message').innerText(), new RegExp(`revert reflow ${reflowId}`));
  assert.match(await panel.innerText(), /Approving puts back what the reflow moved/);

  await panel.locator('button[data-action="approve"]').click();
  assert.equal(await panel.locator('.confirm').innerText(), `Put back what reflow ${reflowId} moved?`);
  assert.equal(await bookingsChecksum(server.databasePath), before, 'nothing is put back before the confirm');
  await panel.locator('button[data-action="confirm-approve"]').click();

  const done = await waitAsAgent(server.mcpUrl, revertId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.equal(done.result.structuredContent.operatorDecision.by, 'ops');
  // Every move goes back, and every booking it marked needs_rebooking is confirmed in its slot again.
  const unresolved = reflow.result.structuredContent.unresolvedBookings.length;
  assert.equal(done.result.structuredContent.restored, moves.length + unresolved);
  assert.equal(done.result.structuredContent.notRestored, 0);
  for (const m of moves)
    assert.equal((await server.services.store.bookings.get(m.bookingId))?.roomId, m.fromRoom, `${m.bookingId} is back`);
  await detail.locator('.detail-head [data-status="completed"]').waitFor({ timeout: 15_000 });
  await page.locator('[data-count="awaiting"] .chip-n', { hasText: '0' }).waitFor({ timeout: 15_000 });
  assert.deepEqual(errors, [], 'no console errors or failed requests');
});
