// A reflow whose TTL runs out while it solves: its owner is told "expired", and the apply that
// follows writes nothing (the terminal write is fenced by the TTL on the engine's clock).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { openSqliteStore } from '@reflow/db';
import { DEMO_SITE_PATH } from '@reflow/seed';
import { TaskEngine, WorkerPool, type Logger } from '@reflow/tasks';
import { importSite, REFLOW_KIND, reflowTaskHandler } from '../src/index.ts';
import { MOVES_THE_CLOCK, sqliteOnly } from '../../../scripts/test-store.mjs';
import { builtFile } from '../../../scripts/test-build.mjs';

const silent: Logger = { info() {}, warn() {}, error() {}, child: () => silent };
const TTL_MS = 60_000;

test(
  'a reflow claimed with little TTL left that expires while solving applies nothing',
  sqliteOnly(MOVES_THE_CLOCK),
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'reflow-expiry-'));
    let offset = 0;
    const now = () => Date.now() + offset;
    const store = openSqliteStore(join(dir, 'r.db'), { clock: now });
    const { connection } = store;
    await store.migrate();
    await importSite(JSON.parse(readFileSync(DEMO_SITE_PATH, 'utf8')), store);
    const pool = new WorkerPool(1);
    const engine = new TaskEngine({ store, pool, logger: silent });
    engine.register(reflowTaskHandler({ store, workerFile: builtFile('solve-worker.js') }));
    t.after(async () => {
      await engine.stop(0);
      await pool.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const bookings = () =>
      connection.sqlite.prepare('SELECT id, room_id, start_at, status, version FROM bookings').all();
    const before = bookings();
    await engine.start();
    const input = { month: '2026-09', offlineRooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20', dryRun: false };
    const { task } = await engine.create({ owner: 'alice', kind: REFLOW_KIND, input, ttlMs: TTL_MS });
    // The first progress is written once the snapshot is read: the clock then passes the TTL.
    const deadline = Date.now() + 30_000;
    while (!(await store.tasks.events(task.id)).some((e) => e.kind === 'progress')) {
      assert.ok(Date.now() < deadline, 'the reflow never started');
      await sleep(5);
    }
    offset = TTL_MS;
    assert.equal(await engine.expired(task.id, 'alice'), true, 'the owner is told the task expired');
    while (engine.runningCount > 0) {
      assert.ok(Date.now() < deadline, 'the attempt never ended');
      await sleep(10);
    }
    assert.deepEqual(bookings(), before, 'no booking moved');
    const audit = connection.sqlite.prepare('SELECT count(*) AS n FROM reflow_moves WHERE task_id = ?').get(task.id);
    assert.deepEqual(audit, { n: 0 });
    assert.notEqual(
      connection.sqlite.prepare('SELECT status FROM tasks WHERE id = ?').pluck().get(task.id),
      'completed',
    );
  },
);
