// The approval view in real headless Chromium under APPROVAL=operator: an agent's reflow appears as
// awaiting approval with its plan on the calendar; approving from the page applies it and the
// agent's poll ends completed naming the approver; a second one is rejected with a reason (the
// page insists on one) and moves nothing. The approval view's screenshot goes to test-artifacts/
// (assets/ with UPDATE_SCREENSHOTS=1, so a test run leaves the work tree as it found it).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ARTIFACTS, launchBrowser, watchForErrors } from '../helpers/browser-helper.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';
import { assertCsvListsMoves, assertIcsListsMoves } from './changes-check.ts';
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

const SCREENSHOTS = fileURLToPath(
  new URL(
    process.env.UPDATE_SCREENSHOTS === '1' ? '../../../../assets/' : '../../../../test-artifacts/',
    import.meta.url,
  ),
);

/** Which room each of the given bookings is in now, read through the server's store. */
async function roomsOf(server: TestServer, moves: { bookingId: string }[]): Promise<string[]> {
  const rooms: string[] = [];
  for (const m of moves) {
    const booking = await server.services.store.bookings.get(m.bookingId);
    assert.ok(booking, `booking ${m.bookingId} exists`);
    rooms.push(booking.roomId);
  }
  return rooms;
}

test('the approval view: awaiting filter and plan, approve applies, reject needs and records a reason', async (t) => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const browser = await launchBrowser(t);
  const server: TestServer = await startTestServer({ ...APPROVAL_ENV, POLL_INTERVAL_MS: '300' });
  t.after(() => server.close());
  const page = await browser.newPage({ viewport: { width: 1680, height: 1100 } });
  const errors = watchForErrors(page, (line) => t.diagnostic(line));
  // The operator's token is in the tab before the page first asks /api.
  await page.addInitScript((token) => (globalThis as any).sessionStorage.setItem('reflow.operatorToken', token), OPS);
  await page.goto(`${server.url}/ui/`);
  await page.locator('#live-text', { hasText: 'Live' }).waitFor({ timeout: 15_000 });

  // An agent's reflow: waiting for us, counted, filtered, its plan on the calendar.
  const first = await startReflowAs(server.mcpUrl, AGENT);
  await waitUntilAwaitingOperator(server.mcpUrl, first);
  const beforeFirst = await bookingsChecksum(server.databasePath);
  await page.locator('[data-count="awaiting"] .chip-n', { hasText: '1' }).waitFor({ timeout: 15_000 });
  await page.locator('[data-count="awaiting"]').click();
  const row = page.locator(`tr[data-task-id="${first}"]`);
  await row.locator('[data-status="awaiting"]').waitFor({ timeout: 15_000 });
  assert.equal(await page.locator('#task-rows tr').count(), 1, 'the filter lists only what awaits a decision');
  await row.click();
  const detail = page.locator('#detail');
  // The detail shows `taskId` (not the task shown before a hash change), completed when asked.
  const detailOf = (taskId: string) =>
    detail.locator('.detail-head', { has: page.locator('.task-id', { hasText: taskId }) });
  const completedDetail = (taskId: string) =>
    detailOf(taskId).locator('[data-status="completed"]').waitFor({ timeout: 60_000 });
  const panel = detail.locator('.approval');
  await panel.waitFor({ timeout: 15_000 });
  assert.match(
    await panel.locator('.approval-message').innerText(),
    /^Waiting for an operator to approve: \d+ moves, \d+ bookings? unresolved \(reflow studio-b, 7–20 Sep\)$/,
  );
  const proposal = (await api(server.url, 'GET', `/api/tasks/${first}`)).body.reflow;
  await detail.locator('.calendar[data-mode="after"]').waitFor({ timeout: 15_000 });
  assert.equal(await detail.locator('.calendar .bk.b-moved').count(), proposal.moves.length, 'the plan, after');
  const move = proposal.moves[0];
  assert.equal(
    await detail
      .locator(`.calendar .cal-cell[data-room="${move.toRoom}"] .bk.b-moved[data-booking="${move.bookingId}"]`)
      .count(),
    1,
    'a planned move sits in its new room',
  );
  assert.equal(await detail.locator('.unresolved li').count(), proposal.unresolvedBookings.length);
  await detail.locator('button[data-view="before"]').click();
  await detail.locator('.calendar[data-mode="before"]').waitFor();
  assert.equal(
    await detail.locator('.calendar .cal-cell[data-room="studio-b"] .bk.b-moved').count(),
    proposal.moves.length,
  );
  await detail.locator('button[data-view="after"]').click();
  await detail.locator('.calendar[data-mode="after"]').waitFor();
  await page.screenshot({ path: join(SCREENSHOTS, 'approval-view.png') });

  // Approve, with the confirm step.
  await panel.locator('button[data-action="approve"]').click();
  assert.match(await panel.locator('.confirm').innerText(), /^Move \d+ bookings/);
  assert.equal(await bookingsChecksum(server.databasePath), beforeFirst, 'nothing written before the confirm');
  await panel.locator('button[data-action="confirm-approve"]').click();
  const done = await waitAsAgent(server.mcpUrl, first);
  assert.equal(done.status, 'completed');
  assert.equal(done.result.structuredContent.applied, true);
  assert.equal(done.result.structuredContent.operatorDecision.by, 'ops');
  await detail.locator('[data-decision="approved"]').waitFor({ timeout: 15_000 });
  await detail.locator('.detail-head [data-status="completed"]').waitFor({ timeout: 15_000 });
  assert.notEqual(await bookingsChecksum(server.databasePath), beforeFirst);

  // Tell the customers: both downloads read back to exactly the task's moves.
  const rooms = new Map<string, string>(
    (await api(server.url, 'GET', '/api/rooms')).body.rooms.map((r: any) => [r.id, r.name]),
  );
  const fetched = async (action: string) => {
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      detail.locator(`button[data-action="${action}"]`).click(),
    ]);
    return readFileSync(await file.path(), 'utf8');
  };
  assertCsvListsMoves(await fetched('download-csv'), done.result.structuredContent, rooms);
  assertIcsListsMoves(await fetched('download-ics'), done.result.structuredContent, rooms);

  // A second one: reject needs a reason; with one, nothing moves and the agent is told why.
  const second = await startReflowAs(server.mcpUrl, AGENT, { from: '2026-09-21', to: '2026-09-27' });
  await waitUntilAwaitingOperator(server.mcpUrl, second);
  const beforeSecond = await bookingsChecksum(server.databasePath);
  await page.evaluate((id) => ((globalThis as any).location.hash = `task=${id}`), second);
  await panel.waitFor({ timeout: 15_000 });
  await panel.locator('button[data-action="reject"]').click();
  await panel.locator('button[data-action="confirm-reject"]').click();
  await panel.locator('.approval-problem', { hasText: 'Give a reason' }).waitFor();
  assert.equal(await bookingsChecksum(server.databasePath), beforeSecond, 'no reject without a reason');
  await panel.locator('#decision-reason').fill('studio-b is back on the 21st');
  await panel.locator('button[data-action="confirm-reject"]').click();
  const rejected = await waitAsAgent(server.mcpUrl, second);
  assert.equal(rejected.result.structuredContent.applied, false);
  assert.equal(rejected.result.structuredContent.operatorDecision.reason, 'studio-b is back on the 21st');
  await detail
    .locator('[data-decision="rejected"]', { hasText: 'studio-b is back on the 21st' })
    .waitFor({ timeout: 15_000 });
  assert.equal(await bookingsChecksum(server.databasePath), beforeSecond, 'a rejection moves nothing');
  await page.locator('[data-count="awaiting"] .chip-n', { hasText: '0' }).waitFor({ timeout: 15_000 });
  await page.screenshot({ path: join(ARTIFACTS, 'approval-rejected.png'), fullPage: true });

  // Started from the form: the operator's own reflow (no approval wait), opened and followed live.
  await page.locator('#new-reflow summary').click();
  await page.locator('#reflow-rooms input[value="studio-b"]').check();
  await page.locator('#reflow-month').fill('2026-09');
  await page.locator('#reflow-month').dispatchEvent('change');
  await page.locator('#reflow-from').fill('2026-09-28');
  await page.locator('#reflow-to').fill('2026-09-30');
  await page.locator('#reflow-dry-run').uncheck();
  await page.locator('#reflow-start').click();
  // The page still shows the second reflow until the form's task opens.
  await page.waitForURL((url) => /#task=tsk_/.test(url.hash) && !url.hash.includes(second), { timeout: 15_000 });
  const formTask = /#task=(tsk_\w+)/.exec(page.url())![1];
  await completedDetail(formTask);
  const formDetail = (await api(server.url, 'GET', `/api/tasks/${formTask}`)).body;
  assert.equal(formDetail.task.owner, 'ops');
  assert.deepEqual(formDetail.reflow.window, { from: '2026-09-28', to: '2026-09-30' });
  assert.equal(formDetail.reflow.summary.applied, true);
  assert.ok(
    formDetail.events.some((e: any) => e.kind === 'progress'),
    'it ran through the engine',
  );

  // The room is back: revert the approved reflow from its page; the calendar shows the bookings back.
  const placedBefore = await roomsOf(server, done.result.structuredContent.moves);
  assert.ok(
    placedBefore.every((room) => room !== 'studio-b'),
    'moved out of studio-b',
  );
  await page.evaluate((id) => ((globalThis as any).location.hash = `task=${id}`), first);
  await detailOf(first).waitFor({ timeout: 15_000 });
  await detail.locator('button[data-action="revert"]').click();
  await detail.locator('button[data-action="confirm-revert"]').click();
  await page.waitForURL((url) => /#task=tsk_/.test(url.hash) && !url.hash.includes(first), { timeout: 15_000 });
  await completedDetail(/#task=(tsk_\w+)/.exec(page.url())![1]);
  assert.match(await detail.locator('.status-message').innerText(), /^Put back \d+ booking/);
  assert.ok((await roomsOf(server, done.result.structuredContent.moves)).every((room) => room === 'studio-b'));
  await page.evaluate((id) => ((globalThis as any).location.hash = `task=${id}`), first);
  await detailOf(first).waitFor({ timeout: 15_000 });
  await detail.locator('.calendar[data-mode="after"]').waitFor({ timeout: 15_000 });
  // The calendar's cells fill in once the month's bookings arrive: wait for the first, then count.
  await detail.locator('.calendar .cal-cell[data-room="studio-b"] .bk.b-moved').first().waitFor({ timeout: 15_000 });
  assert.equal(
    await detail.locator('.calendar .cal-cell[data-room="studio-b"] .bk.b-moved').count(),
    done.result.structuredContent.moves.length,
    'the calendar shows every moved booking back in studio-b',
  );
  const again = await api(server.url, 'POST', `/api/tasks/${first}/revert`);
  assert.equal(again.body.code, 'RFL_ALREADY_REVERTED');
  // A dry run from the form, then "Apply exactly this plan": the same moves, written.
  await page.locator('#new-reflow summary').click();
  await page.locator('#reflow-rooms input[value="studio-a"]').check();
  await page.locator('#reflow-rooms input[value="studio-b"]').uncheck();
  await page.locator('#reflow-month').fill('2026-09');
  await page.locator('#reflow-month').dispatchEvent('change');
  await page.locator('#reflow-from').fill('2026-09-01');
  await page.locator('#reflow-to').fill('2026-09-06');
  await page.locator('#reflow-dry-run').check();
  await page.locator('#reflow-start').click();
  await page.waitForURL((url) => /#task=tsk_/.test(url.hash) && !url.hash.includes(first), { timeout: 15_000 });
  const dryTask = /#task=(tsk_\w+)/.exec(page.url())![1];
  await detail.locator('button[data-action="apply-plan"]').waitFor({ timeout: 60_000 });
  const preview = (await api(server.url, 'GET', `/api/tasks/${dryTask}`)).body.reflow;
  assert.equal(preview.dryRun, true);
  assert.ok(preview.moves.length > 0);
  await detail.locator('button[data-action="apply-plan"]').click();
  await page.waitForURL((url) => !url.hash.includes(dryTask), { timeout: 15_000 });
  const exactTask = /#task=(tsk_\w+)/.exec(page.url())![1];
  await completedDetail(exactTask);
  const exact = (await api(server.url, 'GET', `/api/tasks/${exactTask}`)).body.reflow;
  assert.equal(exact.summary.applied, true);
  const key = (m: any) => `${m.bookingId}|${m.toRoom}|${m.toStart}`;
  assert.deepEqual(
    exact.moves.map((m: any) => key(m)).sort(),
    preview.moves.map((m: any) => key(m)).sort(),
    'applied exactly as previewed',
  );

  assert.deepEqual(errors, []);
});
