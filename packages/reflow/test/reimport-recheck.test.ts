// `reflow import --replace` restarts booking versions at 1, so "same id, same version" no longer
// proves a booking unchanged. A plan read from the previous site (solving, or awaiting approval)
// must write nothing into the re-imported one: the apply checks the site's generation.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { migrateDatabase, openDatabase, queriesFor, type Connection } from '@reflow/db';
import { DEMO_SITE_PATH } from '@reflow/seed';
import { TaskEngine, WorkerPool, type Logger } from '@reflow/tasks';
import { importSite, REFLOW_KIND, reflowTaskHandler } from '../src/index.ts';

const silent: Logger = { info() {}, warn() {}, error() {}, child: () => silent };
const SITE = JSON.parse(readFileSync(DEMO_SITE_PATH, 'utf8')) as unknown;
const INPUT = { month: '2026-09', offlineRooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20', dryRun: false };

async function withEngine(t: { after(fn: () => Promise<void>): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'reflow-reimport-'));
  const connection = openDatabase(join(dir, 'r.db'));
  migrateDatabase(connection);
  const queries = queriesFor(connection);
  importSite(SITE, queries);
  const pool = new WorkerPool(1);
  const engine = new TaskEngine({ connection, pool, logger: silent });
  engine.register(reflowTaskHandler({ connection, queries }));
  t.after(async () => {
    await engine.stop(0);
    await pool.close();
    connection.close();
    rmSync(dir, { recursive: true, force: true });
  });
  engine.start();
  return { connection, queries, engine };
}

const bookings = (c: Connection) =>
  c.sqlite.prepare('SELECT id, room_id, start_at, end_at, status, version FROM bookings ORDER BY id').all();

function assertRefused(done: { status: string; error: unknown } | undefined) {
  assert.equal(done?.status, 'failed');
  assert.match(JSON.stringify(done.error), /re-imported after this reflow read it; nothing was applied/);
  assert.match(JSON.stringify(done.error), /RFL_SITE_REPLACED/);
}

test('a plan solved before an import --replace does not overwrite the re-imported bookings', async (t) => {
  const { connection, queries, engine } = await withEngine(t);
  const { task } = engine.create({ owner: 'o', kind: REFLOW_KIND, input: INPUT });
  let reimported: unknown;
  // The first progress is written once the snapshot is read, before the worker solves: replace the site then.
  const done = await engine.waitFor(task.id, () => {
    if (reimported) return;
    importSite(SITE, queries, { replace: true });
    reimported = bookings(connection);
  });
  assert.ok(reimported, 'the site was replaced while the reflow solved');
  assertRefused(done);
  assert.deepEqual(bookings(connection), reimported, 'the re-imported bookings are as imported');
  assert.equal(connection.sqlite.prepare('SELECT count(*) FROM reflow_moves').pluck().get(), 0);
});

test('a plan awaiting approval across an import --replace applies nothing when approved', async (t) => {
  const { connection, queries, engine } = await withEngine(t);
  const { task } = engine.create({ owner: 'o', kind: REFLOW_KIND, input: { ...INPUT, confirm: true } });
  const deadline = Date.now() + 60_000;
  while (engine.get(task.id)?.status !== 'input_required') {
    assert.ok(Date.now() < deadline && engine.get(task.id)?.status === 'working', 'the task parks for approval');
    await new Promise((r) => setTimeout(r, 20));
  }
  importSite(SITE, queries, { replace: true });
  const reimported = bookings(connection);
  const key = Object.keys(queries.inputs.get(task.id)!.pending)[0];
  engine.answer(task.id, { [key]: { action: 'accept', content: { apply: true } } }, 'o');
  assertRefused(await engine.waitFor(task.id));
  assert.deepEqual(bookings(connection), reimported);
  assert.equal(connection.sqlite.prepare('SELECT count(*) FROM reflow_moves').pluck().get(), 0);
});

test('each replacing import is a new site generation; a first import is generation 1', async (t) => {
  const { queries } = await withEngine(t);
  assert.equal(queries.site.getSite()!.generation, 1);
  importSite(SITE, queries, { replace: true });
  importSite(SITE, queries, { replace: true });
  assert.equal(queries.site.getSite()!.generation, 3);
});
