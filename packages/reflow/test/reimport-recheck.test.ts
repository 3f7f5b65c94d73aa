// `reflow import --replace` restarts booking versions at 1, so "same id, same version" no longer
// proves a booking unchanged. A plan read from the previous site (solving, or awaiting approval)
// must write nothing into the re-imported one: the apply checks the site's generation.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { TestSql } from '../../../scripts/test-sql.mjs';
import { DEMO_SITE_PATH } from '@reflow/seed';
import { TaskEngine, WorkerPool, type Logger } from '@reflow/tasks';
import { importSite, REFLOW_KIND, reflowTaskHandler } from '../src/index.ts';
import { openReflowTestStore } from './reflow-test-store.ts';
import { builtFile } from '../../../scripts/test-build.mjs';

const silent: Logger = { info() {}, warn() {}, error() {}, child: () => silent };
const SITE = JSON.parse(readFileSync(DEMO_SITE_PATH, 'utf8')) as unknown;
const INPUT = { month: '2026-09', offlineRooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20', dryRun: false };

async function withEngine(t: { after(fn: () => Promise<void>): void }) {
  const opened = await openReflowTestStore();
  const { store, sql } = opened;
  await importSite(SITE, store);
  const pool = new WorkerPool(1);
  const engine = new TaskEngine({ store, pool, logger: silent });
  engine.register(reflowTaskHandler({ store, workerFile: builtFile('solve-worker.js') }));
  t.after(async () => {
    await engine.stop(0);
    await pool.close();
    await opened.close();
  });
  await engine.start();
  return { sql, store, engine };
}

const bookings = (sql: TestSql) =>
  sql.all('SELECT id, room_id, start_at, end_at, status, version FROM bookings ORDER BY id');

function assertRefused(done: { status: string; error: unknown } | undefined) {
  assert.equal(done?.status, 'failed');
  assert.match(JSON.stringify(done.error), /re-imported after this reflow read it; nothing was applied/);
  assert.match(JSON.stringify(done.error), /RFL_SITE_REPLACED/);
}

test('a plan solved before an import --replace does not overwrite the re-imported bookings', async (t) => {
  const { sql, store, engine } = await withEngine(t);
  const { task } = await engine.create({ owner: 'o', kind: REFLOW_KIND, input: INPUT });
  let reimported: unknown;
  let replacing: Promise<unknown> | undefined;
  // The first progress is written once the snapshot is read, before the worker solves: replace the site then.
  const done = await engine.waitFor(task.id, () => {
    replacing ??= importSite(SITE, store, { replace: true }).then(async () => (reimported = await bookings(sql)));
  });
  await replacing;
  assert.ok(reimported, 'the site was replaced while the reflow solved');
  assertRefused(done);
  assert.deepEqual(await bookings(sql), reimported, 'the re-imported bookings are as imported');
  assert.equal(await sql.value('SELECT count(*) FROM reflow_moves'), 0);
});

test('a plan awaiting approval across an import --replace applies nothing when approved', async (t) => {
  const { sql, store, engine } = await withEngine(t);
  const { task } = await engine.create({ owner: 'o', kind: REFLOW_KIND, input: { ...INPUT, confirm: true } });
  const deadline = Date.now() + 60_000;
  // One read per look: two reads could see 'working', then 'input_required' in between.
  for (let status = (await engine.get(task.id))?.status; status !== 'input_required';) {
    assert.ok(Date.now() < deadline && status === 'working', 'the task parks for approval');
    await new Promise((r) => setTimeout(r, 20));
    status = (await engine.get(task.id))?.status;
  }
  await importSite(SITE, store, { replace: true });
  const reimported = await bookings(sql);
  const key = Object.keys((await store.inputs.get(task.id))!.pending)[0];
  await engine.answer(task.id, { [key]: { action: 'accept', content: { apply: true } } }, 'o');
  assertRefused(await engine.waitFor(task.id));
  assert.deepEqual(await bookings(sql), reimported);
  assert.equal(await sql.value('SELECT count(*) FROM reflow_moves'), 0);
});

test('each replacing import is a new site generation; a first import is generation 1', async (t) => {
  const { store } = await withEngine(t);
  assert.equal((await store.site.getSite())!.generation, 1);
  await importSite(SITE, store, { replace: true });
  await importSite(SITE, store, { replace: true });
  assert.equal((await store.site.getSite())!.generation, 3);
});
