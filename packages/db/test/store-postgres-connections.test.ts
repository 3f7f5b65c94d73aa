// PostgreSQL connections under trouble: every connection carries statement, lock and
// idle-in-transaction timeouts; a full pool is reported as exhausted (not as the database away) and
// counted; an import and an apply take turns over the site's generation, in either order, and so do
// two imports; the LISTEN connection reconnects once, however many errors its dropped client emits.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, test } from 'node:test';
import pg from 'pg';
import { openPostgresStore, PoolExhaustedError, storeTrouble, type PostgresStore } from '../src/index.ts';
import { postgresKind, sleep, smallSite, type OpenedStore } from './store-harness.ts';
import { cuttableProxy } from '../../../scripts/cuttable-proxy.mjs';
import { startExtraPostgres } from '../../../scripts/postgres-for-tests.mjs';

const opened: OpenedStore<PostgresStore>[] = [];
const open = async () => {
  const o = await postgresKind.open({ seed: smallSite });
  opened.push(o);
  return o;
};
after(async () => {
  for (const o of opened) await o.done();
});

test('every connection carries statement, lock and idle-in-transaction timeouts (defaults, and as configured), and JIT off', async () => {
  const { store, url } = await open();
  const show = async (s: PostgresStore, name: string) => (await s.pool.query(`SHOW ${name}`)).rows[0][name];
  assert.deepEqual(
    [
      await show(store, 'statement_timeout'),
      await show(store, 'lock_timeout'),
      await show(store, 'idle_in_transaction_session_timeout'),
      await show(store, 'jit'),
    ],
    ['30s', '10s', '1min', 'off'],
  );
  const tuned = await openPostgresStore(url!, {
    statementTimeoutMs: 1500,
    lockTimeoutMs: 200,
    idleInTransactionTimeoutMs: 0,
  });
  try {
    assert.deepEqual(
      [
        await show(tuned, 'statement_timeout'),
        await show(tuned, 'lock_timeout'),
        await show(tuned, 'idle_in_transaction_session_timeout'),
      ],
      ['1500ms', '200ms', '0'],
    );
    // A lock held by a session left idle in its transaction fails a write after lock_timeout, as "busy".
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE nodes IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      const error = await tuned.nodes.heartbeat('node-x', []).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(error, 'the heartbeat failed rather than waited');
      assert.equal(storeTrouble(error), 'busy');
      assert.ok(Date.now() - started < 5_000, `failed after ${Date.now() - started} ms`);
      await holder.query('ROLLBACK');
    } finally {
      await holder.end();
    }
  } finally {
    await tuned.close();
  }
});

test('a full pool is reported as exhausted, not as the database away, and counted', async () => {
  const { url } = await open();
  const store = await openPostgresStore(url!, { poolSize: 2, connectionTimeoutMs: 300 });
  try {
    const held = [await store.pool.connect(), await store.pool.connect()];
    const error = await store.tasks.get('tsk_any').then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(
      error instanceof PoolExhaustedError || (error as Error).cause instanceof PoolExhaustedError,
      String(error),
    );
    assert.equal(storeTrouble(error), 'pool exhausted');
    assert.match((error as Error).message + String((error as Error).cause), /pool exhausted/);
    assert.equal(store.poolStats.exhausted, 1);
    assert.equal(store.poolStats.size, 2);
    for (const client of held) client.release();
    assert.equal(await store.tasks.get('tsk_any'), undefined, 'answers again once a connection is free');
  } finally {
    await store.close();
  }
});

test('a connection reset under a transaction’s BEGIN, a statement or its COMMIT leaves the pool instead of staying checked out', async () => {
  const { url } = await open();
  const proxy = await cuttableProxy(url!);
  // One connection: a transaction that kept its connection would leave every later one waiting.
  const store = await openPostgresStore(proxy.url, { poolSize: 1, connectionTimeoutMs: 500, onError: () => {} });
  try {
    /** Runs `run`, which calls `stall` before the statement the cut lands under, then cuts. */
    const cutUnder = async (what: string, run: (stall: () => void) => Promise<unknown>) => {
      await store.tasks.get('tsk_warm'); // the pool's one connection, open and idle
      const failed = run(() => proxy.stall()).then(
        () => assert.fail(`${what}: the transaction committed through a cut connection`),
        (e: unknown) => e,
      );
      await sleep(150); // the statement is on its way and will never be answered
      await proxy.cut();
      const error = await failed;
      assert.ok(storeTrouble(error), `${what}: failed as the database away (${String(error)})`);
      await proxy.restore();
      assert.equal(store.poolStats.total, 0, `${what}: the broken connection left the pool`);
      assert.equal(await store.tasks.get('tsk_any'), undefined, `${what}: the next request gets a connection`);
    };
    await cutUnder('BEGIN', (stall) => {
      stall();
      return store.transaction(async () => {});
    });
    await cutUnder('a statement', (stall) =>
      store.transaction(async (tx) => {
        stall();
        await tx.tasks.get('tsk_inside');
      }),
    );
    await cutUnder('COMMIT', (stall) =>
      store.transaction(async (tx) => {
        await tx.tasks.get('tsk_inside');
        stall();
      }),
    );
  } finally {
    await store.close();
    await proxy.close();
  }
});

test('an import waits for an apply that read the generation under its lock', async () => {
  const { store, second } = await open();
  const importer = await second();
  let importDone = false;
  let imported: Promise<void> | undefined;
  await store.transaction(async (tx) => {
    assert.equal(await tx.site.lockedGeneration(), 1);
    imported = importer.site.writeSite(smallSite(), true).then(() => void (importDone = true));
    await sleep(300);
    assert.equal(importDone, false, 'the import waits until the apply commits');
  });
  await imported;
  assert.equal((await store.site.getSite())?.generation, 2);
});

test('two imports at once take turns: the second replaces the first one’s site, as the next generation', async () => {
  const { store, second } = await open();
  const importer = await second();
  let secondDone = false;
  let secondImport: Promise<void> | undefined;
  await store.transaction(async (tx) => {
    await tx.site.writeSite(smallSite(), true);
    // The first import has deleted and rewritten the site row, not yet committed.
    secondImport = importer.site.writeSite(smallSite(), true).then(() => void (secondDone = true));
    await sleep(300);
    assert.equal(secondDone, false, 'the second import waits for the first');
  });
  await secondImport;
  // Not 1: the second import judged the generation on the site the first one committed.
  assert.equal((await store.site.getSite())?.generation, 3);
});

test('a transaction that took the import lock sees the site an import committed while it waited', async () => {
  const { store, second } = await open();
  const other = await second();
  let seen: number | undefined;
  let checking: Promise<void> | undefined;
  await store.transaction(async (tx) => {
    await tx.site.writeSite(smallSite(), true);
    checking = other.transaction(async (otherTx) => {
      await otherTx.site.lockForImport();
      seen = (await otherTx.site.getSite())?.generation;
    });
    await sleep(300);
    assert.equal(seen, undefined, 'it waits for the import');
  });
  await checking;
  assert.equal(seen, 2, 'then reads the new site (an import without --replace is refused: RFL_SITE_EXISTS)');
});

test('an apply that reads the generation while an import is writing waits for it, then sees the new generation', async () => {
  const { store, url } = await open();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // An import's first write, not yet committed: the site row locked and replaced.
    await client.query('BEGIN');
    await client.query('SELECT generation FROM site FOR UPDATE');
    await client.query('DELETE FROM reflow_moves');
    await client.query('DELETE FROM reflow_unresolved');
    await client.query('DELETE FROM bookings');
    await client.query('DELETE FROM site');
    await client.query("INSERT INTO site (id, name, timezone, generation) VALUES (1, 'Riverside', 'Europe/London', 2)");
    let seen: number | undefined;
    const apply = store.transaction(async (tx) => {
      seen = await tx.site.lockedGeneration();
    });
    await sleep(300);
    assert.equal(seen, undefined, 'the apply waits for the import');
    await client.query('COMMIT');
    await apply;
    assert.equal(seen, 2, 'and then reads the new generation (so it refuses to apply: RFL_SITE_REPLACED)');
  } finally {
    await client.end();
  }
});

test('the LISTEN connection, dropped, is replaced once: however many errors its old client emits, one LISTEN remains', async () => {
  const { store, url } = await open();
  const heard: string[] = [];
  store.onSignal((signal, id) => heard.push(`${signal}:${id}`));
  await store.listening();
  const listeners = async () =>
    (
      await store.pool.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()",
      )
    ).rows.map((r) => r.pid);
  const [first] = await listeners();
  assert.ok(first, 'one LISTEN connection');
  // Freeze its backend: the probe times out (one error), then, once it is killed and thawed, its
  // query fails too (a second error, after the reconnect timer fired).
  const kill = (signal: string) => spawnSync('kill', [`-${signal}`, String(first)]);
  kill('STOP');
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && (await listeners()).every((pid) => pid === first)) await sleep(200);
  await store.pool.query('SELECT pg_terminate_backend($1)', [first]);
  kill('CONT');
  await sleep(2_000);
  const now = await listeners();
  assert.equal(now.length, 1, `LISTEN connections: ${now.join(', ')}`);
  assert.notEqual(now[0], first);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("SELECT pg_notify('reflow_store_signals', 'created:tsk_once')");
  await client.end();
  await sleep(500);
  assert.deepEqual(
    heard.filter((h) => h === 'created:tsk_once'),
    ['created:tsk_once'],
    'heard once',
  );
});

test('PostgreSQL stopped while a transaction holds a connection between statements: the transaction fails, the process lives on', async (t) => {
  const postgres = await startExtraPostgres('tx-held');
  t.after(() => postgres.remove());
  const errors: Error[] = [];
  const store = await openPostgresStore(`${postgres.url}/postgres`, { onError: (error) => errors.push(error) });
  t.after(() => store.close().catch(() => {}));
  await store.migrate();
  const uncaught: unknown[] = [];
  const hear = (error: unknown) => uncaught.push(error);
  process.on('uncaughtException', hear);
  t.after(() => process.off('uncaughtException', hear));
  const held = store.transaction(async (tx) => {
    await tx.tasks.get('tsk_first');
    // The server ends this connection ("terminating connection due to administrator command")
    // while it is checked out and idle in the transaction.
    await postgres.stop();
    await sleep(300);
    await tx.tasks.get('tsk_second');
  });
  await assert.rejects(held, (error: unknown) => storeTrouble(error) === 'unreachable');
  assert.deepEqual(uncaught, [], 'nothing escaped as an uncaught error');
  assert.ok(errors.length >= 1, 'the dropped connection was reported through onError');
  await postgres.start();
  assert.equal(await store.tasks.get('tsk_any'), undefined, 'the store answers again');
});
