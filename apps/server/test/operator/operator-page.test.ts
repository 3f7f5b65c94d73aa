// The operator page in real headless Chromium (Debian's /usr/bin/chromium through playwright-core):
// the demo reflow goes live in the list without a reload, its detail shows the month before and
// after, and a second, long-running task is cancelled from the page. No console errors allowed.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEMO_AFFECTED } from '@reflow/seed';
import { ARTIFACTS, launchBrowser, watchForErrors } from '../helpers/browser-helper.ts';
import { rpc, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { getJson, startReflow } from '../helpers/operator-helper.ts';

test(
  'the operator page: a task goes working → completed live, its month before and after, cancel from the page',
  { timeout: 180_000 },
  async (t) => {
    const browser = await launchBrowser(t);
    const page = await browser.newPage({ viewport: { width: 1680, height: 1100 } });
    const errors = watchForErrors(page, (line) => t.diagnostic(line));
    // The page's server runs no workers: a task it accepts stays working until a worker process
    // sharing the database takes it, so the page is seen going from working to completed.
    const server: TestServer = await startTestServer({ WORKERS: '0' });
    let workers: TestServer | undefined;
    t.after(async () => {
      await workers?.close({ keepDatabase: true });
      await server.close();
    });

    await page.goto(`${server.url}/ui`);
    await page.locator('#live-text', { hasText: 'Live' }).waitFor({ timeout: 15_000 });
    await page.evaluate(() => ((globalThis as any).__sameDocument = true));
    const taskId = await startReflow(server.mcpUrl);
    const row = page.locator(`tr[data-task-id="${taskId}"]`);
    await row.locator('[data-status="working"]').waitFor({ timeout: 15_000 });
    workers = await startTestServer({ WORKERS: '2' }, server.databasePath);
    await row.locator('[data-status="completed"]').waitFor({ timeout: 60_000 });
    assert.equal(await page.evaluate(() => (globalThis as any).__sameDocument), true, 'no reload happened');
    assert.equal(await page.locator('[data-count="completed"] .chip-n').textContent(), '1');

    // Its detail: history, the numbers, and the calendar with every moved booking.
    await row.click();
    const detail = page.locator('#detail');
    await detail.locator('.calendar[data-mode="after"]').waitFor({ timeout: 15_000 });
    const { body } = await getJson(`${server.url}/api/tasks/${taskId}`);
    const moves = body.reflow.moves.length;
    const unresolved = body.reflow.unresolvedBookings.length;
    assert.equal(moves + unresolved, DEMO_AFFECTED);
    assert.match(await detail.locator('.stats').innerText(), new RegExp(`${moves} / ${DEMO_AFFECTED}`));
    assert.ok((await detail.locator('.events li').count()) >= 3, 'progress history shown');
    assert.equal(await detail.locator('.calendar .bk.b-moved').count(), moves);
    assert.equal(await detail.locator('.calendar .cal-cell[data-room="studio-b"] .bk.b-ghost').count(), moves);
    assert.equal(await detail.locator('.calendar .bk.b-unresolved').count(), unresolved);
    assert.equal(await detail.locator('.calendar .cal-cell.offline').count(), 14, 'studio-b marked offline 7–20 Sep');
    assert.equal(
      await detail.locator('.calendar .cal-cell.offline[data-room="studio-b"][data-day="2026-09-07"]').count(),
      1,
    );
    assert.equal(await detail.locator('.unresolved li').count(), unresolved);
    const someMove = body.reflow.moves[0];
    await detail
      .locator(`.calendar .cal-cell[data-room="${someMove.toRoom}"] .bk.b-moved[data-booking="${someMove.bookingId}"]`)
      .click();
    assert.match(await detail.locator('.cal-info').innerText(), new RegExp(`moved from ${someMove.fromRoom}`));
    const after = join(ARTIFACTS, 'operator-calendar-after.png');
    await detail.locator('.calendar-wrap').screenshot({ path: after });
    await page.screenshot({ path: join(ARTIFACTS, 'operator-page-detail.png'), fullPage: true });

    await detail.locator('button[data-view="before"]').click();
    await detail.locator('.calendar[data-mode="before"]').waitFor();
    assert.equal(
      await detail.locator('.calendar .cal-cell[data-room="studio-b"] .bk.b-moved').count(),
      moves,
      'before: every moved booking back in studio-b',
    );
    const before = join(ARTIFACTS, 'operator-calendar-before.png');
    await detail.locator('.calendar-wrap').screenshot({ path: before });
    console.log(`calendar screenshots: ${after}\n                      ${before}`);

    // A second task that stays working: the worker process is gone, only the accept-only one is left.
    await workers.close({ keepDatabase: true });
    workers = undefined;
    const longTask = await startReflow(server.mcpUrl, {
      offline_rooms: ['studio-a'],
      from: '2026-09-01',
      to: '2026-09-30',
    });
    const longRow = page.locator(`tr[data-task-id="${longTask}"]`);
    await longRow.locator('[data-status="working"]').waitFor({ timeout: 15_000 });
    await longRow.click();
    await detail.locator('button[data-action="cancel-detail"]').click();
    await detail.locator('button[data-action="confirm-cancel"]').click();
    await detail.locator('.detail-head [data-status="cancelled"]').waitFor({ timeout: 15_000 });
    await longRow.locator('[data-status="cancelled"]').waitFor({ timeout: 15_000 });
    assert.equal(
      await detail.locator('button[data-action="cancel-detail"]').count(),
      0,
      'no Cancel on a cancelled task',
    );
    assert.equal((await rpc(server.mcpUrl, 'tasks/get', { taskId: longTask })).body.result.status, 'cancelled');
    await page.screenshot({ path: join(ARTIFACTS, 'operator-page-cancelled.png') });

    assert.deepEqual(errors, []);

    // An entered operator token rides on every /api request as a bearer token (kept for this tab only).
    await page.fill('#token-input', 'operator-token-from-test');
    const sent = page.waitForRequest(
      (r) => r.url().includes('/api/') && r.headers().authorization === 'Bearer operator-token-from-test',
      { timeout: 15_000 },
    );
    await page.click('#token-form button[type="submit"]');
    await sent;
    assert.equal(
      await page.evaluate(() => (globalThis as any).sessionStorage.getItem('reflow.operatorToken')),
      'operator-token-from-test',
    );
  },
);
