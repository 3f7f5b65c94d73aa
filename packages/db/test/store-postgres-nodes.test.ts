// What only PostgreSQL has: several nodes (store instances, each with its own pool) on one database
// at once. Overlapping scopes are never held together wherever they are claimed, no task is claimed
// twice, creates deduplicate and count limits across nodes (the same work by two owners takes turns), two nodes migrate one fresh database
// together, signals reach another node and survive a dropped LISTEN connection.
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { openPostgresStore, type PostgresStore, type StoreQueries, type TaskRow } from '../src/index.ts';
import { createTestDatabase } from '../../../scripts/postgres-for-tests.mjs';
import { newTask, postgresKind, sleep, smallSite, type OpenedStore } from './store-harness.ts';

const fenceOf = (row: TaskRow) => ({ taskId: row.id, attempt: row.attempt, claimedBy: row.claimedBy! });

describe('PostgreSQL store across nodes', () => {
  const opened: OpenedStore<PostgresStore>[] = [];
  const open = async (): Promise<OpenedStore<PostgresStore>> => {
    const o = await postgresKind.open();
    opened.push(o);
    return o;
  };
  after(async () => {
    for (const o of opened) await o.done();
  });

  test('overlapping scopes are never held at once, whichever node claims them (many rounds, claimers in parallel)', async () => {
    const { store, second } = await open();
    const nodes = [store, await second(), await second()];
    const hour = 3_600_000;
    let claims = 0;
    const violations: string[] = [];
    for (let round = 0; round < 12; round++) {
      // 10 tasks on 2 keys, ranges overlapping in places: the scopes to keep apart.
      const created: { id: string; key: string; start: number; end: number }[] = [];
      for (let i = 0; i < 10; i++) {
        const key = `site-${round}-${i % 2}`;
        const start = Math.floor(Math.random() * 20) * hour;
        const end = start + (1 + Math.floor(Math.random() * 8)) * hour;
        const t = newTask({ scopeKey: key, scopeStart: start, scopeEnd: end });
        await nodes[i % 3].tasks.createOrFind(t, { message: 'Queued' });
        created.push({ id: t.id, key, start, end });
      }
      // Held now, as the claimers see it: added when claimed, removed before the finish is written.
      const held = new Map<string, { key: string; start: number; end: number }>();
      const finished = new Set<string>();
      const worker = async (node: PostgresStore, name: string) => {
        for (let idle = 0; finished.size < created.length && idle < 400;) {
          const row = await node.tasks.claimNext(name, 30_000);
          if (!row) {
            idle++;
            await sleep(5);
            continue;
          }
          claims++;
          for (const [id, h] of held)
            if (h.key === row.scopeKey && h.start < row.scopeEnd! && row.scopeStart! < h.end)
              violations.push(`${row.id} claimed by ${name} while ${id} held an overlapping scope`);
          held.set(row.id, { key: row.scopeKey!, start: row.scopeStart!, end: row.scopeEnd! });
          await sleep(Math.random() * 15);
          held.delete(row.id);
          await node.tasks.finish(fenceOf(row), { status: 'completed', result: '{}', message: 'done' });
          finished.add(row.id);
        }
      };
      await Promise.all(nodes.flatMap((node, n) => [0, 1].map((w) => worker(node, `node-${n}/w${w}`))));
      assert.equal(finished.size, created.length, `round ${round}: every task ran`);
    }
    assert.deepEqual(violations, []);
    assert.equal(claims, 120, 'each task claimed exactly once');
  });

  test('no task is claimed twice: unscoped tasks drained by six claimers on three nodes', async () => {
    const { store, second } = await open();
    const nodes = [store, await second(), await second()];
    const ids = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const t = newTask();
      ids.add(t.id);
      await store.tasks.createOrFind(t, { message: 'Queued' });
    }
    const claimed: string[] = [];
    await Promise.all(
      nodes.flatMap((node, n) =>
        [0, 1].map(async (w) => {
          for (;;) {
            const row = await node.tasks.claimNext(`node-${n}/w${w}`, 30_000);
            if (!row) return;
            assert.equal(row.attempt, 1);
            claimed.push(row.id);
          }
        }),
      ),
    );
    assert.equal(claimed.length, 60);
    assert.deepEqual(new Set(claimed), ids);
  });

  test('creates deduplicate and count limits across nodes', async () => {
    const { store, second } = await open();
    const nodes = [store, await second()];
    const same = newTask();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        nodes[i % 2].tasks.createOrFind({ ...same, id: `${same.id}-${i}` }, { message: 'Queued' }),
      ),
    );
    assert.equal(results.filter((r) => r.created).length, 1, 'identical work is one task');
    assert.equal(new Set(results.map((r) => r.task.id)).size, 1);

    const limit = 3;
    const admitted = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        nodes[i % 2].tasks.createOrFind(newTask({ owner: 'carol' }), { message: 'Queued' }, async (tx) => {
          if ((await tx.principals.activeTaskCount('carol')) >= limit) throw new Error('too many');
        }),
      ),
    );
    assert.equal(admitted.filter((r) => r.status === 'fulfilled').length, limit);
    assert.equal(await store.principals.activeTaskCount('carol'), limit);
  });

  test('creates of the same work by two owners on two nodes take turns: the later one’s admit counts the earlier', async () => {
    const { store, second } = await open();
    const other = await second();
    // As a revert of one reflow asked by its owner and by an operator at once: one dedupe key, two
    // owners, and an admit that refuses when the work is already there.
    const work = 'revert-of-tsk_one';
    let firstAdmitting!: () => void;
    const admitting = new Promise<void>((resolve) => (firstAdmitting = resolve));
    const counted: number[] = [];
    const admitOnce = (onCounted?: () => Promise<void>) => async (tx: StoreQueries) => {
      const n = await tx.taskList.countLiveByDedupeKey(work, ['working', 'input_required', 'completed']);
      counted.push(n);
      await onCounted?.();
      if (n > 0) throw new Error('already there');
    };
    const byOwner = store.tasks.createOrFind(
      newTask({ id: 'tsk_by_owner', owner: 'client-a', dedupeKey: work }),
      { message: 'Queued' },
      admitOnce(async () => {
        firstAdmitting();
        await sleep(200);
      }),
    );
    await admitting;
    const byOperator = other.tasks.createOrFind(
      newTask({ id: 'tsk_by_operator', owner: 'operator', dedupeKey: work }),
      { message: 'Queued' },
      admitOnce(),
    );
    const [owner, operator] = await Promise.allSettled([byOwner, byOperator]);
    assert.equal(owner.status, 'fulfilled');
    assert.equal(operator.status, 'rejected', 'the later create counted the earlier one and refused');
    assert.deepEqual(counted, [0, 1]);
    assert.equal(await store.tasks.get('tsk_by_operator'), undefined);
  });

  test('two nodes migrating one fresh database at once: one migrates and seeds, the other finds it done', async () => {
    const database = await createTestDatabase();
    const a = await openPostgresStore(database.url);
    const b = await openPostgresStore(database.url);
    try {
      const results = await Promise.all([a.migrate({ seed: smallSite }), b.migrate({ seed: smallSite })]);
      assert.deepEqual(results.map((r) => r.seeded).sort(), [false, true]);
      assert.equal(await a.site.bookingCount(), 3);
      assert.equal(await b.migrationsApplied(), true);
      const { rows } = await a.pool.query('select count(*)::int as n from drizzle.__drizzle_migrations');
      // Each migration recorded once, not once per node.
      const journal = JSON.parse(
        readFileSync(new URL('../../../migrations/postgres/meta/_journal.json', import.meta.url), 'utf8'),
      );
      assert.equal(rows[0].n, journal.entries.length);
    } finally {
      await a.close();
      await b.close();
      await database.drop();
    }
  });

  test('a node refuses a database migrated by a newer build, and changes nothing', async () => {
    const { store } = await open();
    await store.pool.query('insert into drizzle.__drizzle_migrations (hash, created_at) values ($1, $2)', [
      'from-the-future',
      Date.UTC(2099, 0, 1),
    ]);
    await assert.rejects(store.migrate({ seed: smallSite }), {
      name: 'SchemaTooNewError',
      message: /migrated by a newer version/,
    });
    assert.equal(await store.site.getSite(), undefined, 'nothing seeded');
  });

  test('a dropped LISTEN connection is reconnected and signals are heard again; dropped pool connections do not crash', async () => {
    const { store, second } = await open();
    const errors: Error[] = [];
    const node = await openPostgresStore(opened.at(-1)!.url!, {
      applicationName: 'reflow-listener-test',
      onError: (e) => errors.push(e),
    });
    try {
      await second(); // a second pool alive meanwhile
      const heard: string[] = [];
      node.onSignal((signal, id) => heard.push(`${signal}:${id}`));
      await node.listening();
      await node.ping();
      const a = newTask();
      await store.tasks.createOrFind(a, { message: 'Queued' });
      for (let i = 0; i < 100 && !heard.includes(`created:${a.id}`); i++) await sleep(20);
      assert.ok(heard.includes(`created:${a.id}`));
      // Every connection of that node ends (a database restart, as that node sees it).
      await store.pool.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'reflow-listener-test'",
      );
      const b = newTask();
      for (let i = 0; i < 150 && !heard.includes(`created:${b.id}`); i++) {
        if (i % 10 === 0) await store.tasks.createOrFind({ ...newTask(), id: `${b.id}-${i}` }, { message: 'Queued' });
        await sleep(20);
        if (i === 50) await store.tasks.createOrFind(b, { message: 'Queued' });
      }
      assert.ok(heard.includes(`created:${b.id}`), 'heard again after reconnecting');
      // The pool gives fresh connections too; the errors went to onError, not to a crash.
      await node.ping();
      assert.equal((await node.tasks.get(b.id))?.id, b.id);
      assert.ok(errors.length > 0, 'the dropped connections were reported');
    } finally {
      await node.close();
    }
  });

  test('clock() follows the database clock; location names host and database, never the password', async () => {
    const { store, url } = await open();
    const withPassword = url!.replace('postgres@', 'postgres:s3cret-pw@');
    const node = await openPostgresStore(withPassword);
    try {
      assert.equal(node.location.includes('s3cret'), false);
      assert.match(node.location, /^127\.0\.0\.1:\d+\/reflow_test_/);
      const dbNow = await node.now();
      assert.ok(Math.abs(dbNow - node.clock()) < 500);
      const t = newTask();
      const { task } = await store.tasks.createOrFind(t, { message: 'Queued' });
      assert.ok(Math.abs(task.createdAt - dbNow) < 2000);
    } finally {
      await node.close();
    }
  });

  test("the site a create reads is each node's cached copy, dropped by an import on any node", async () => {
    const seeded = await postgresKind.open({ seed: smallSite });
    opened.push(seeded);
    const { store, second } = seeded;
    const other = await second();
    // The other node listens, as a running engine does: an import's NOTIFY reaches its cache.
    const stopListening = other.onSignal(() => {});
    await other.listening();
    assert.deepEqual(await other.site.unknownRooms(['studio-a', 'studio-z']), ['studio-z']);
    const site = smallSite();
    // Read just now: without the NOTIFY the copy would live on for most of the 1 s backstop.
    const before = (await other.site.getSite())!.generation;
    await store.site.writeSite({ ...site, rooms: [...site.rooms, { ...site.rooms[0], id: 'studio-z' }] }, true);
    // The importing node drops its own copy at the commit.
    assert.deepEqual(await store.site.unknownRooms(['studio-z']), []);
    // The other node, once the NOTIFY arrives: long before the cache's 1 s backstop.
    const started = Date.now();
    while ((await other.site.unknownRooms(['studio-z'])).length > 0) await sleep(5);
    assert.ok(Date.now() - started < 500, `heard after ${Date.now() - started} ms`);
    assert.equal((await other.site.getSite())!.generation, before + 1);
    assert.deepEqual(await other.site.roomIds(), ['studio-a', 'studio-b', 'studio-z']);
    stopListening();
  });

  test('two survivors reaping one dead node release each of its claims once', async () => {
    const { store, second } = await open();
    const other = await second();
    await store.nodes.register({ id: 'dead', host: 'h', pid: 1, workers: 4 });
    for (let i = 0; i < 8; i++) await store.tasks.createOrFind(newTask(), { message: 'Queued' });
    for (let i = 0; i < 8; i++) await store.tasks.claimNext('dead', 60_000);
    await sleep(300);
    const [x, y] = await Promise.all([store.nodes.reapLapsed(200, 'reaped'), other.nodes.reapLapsed(200, 'reaped')]);
    assert.deepEqual([...x, ...y], ['dead']);
    assert.equal(await store.tasks.queueDepth(), 8);
    const { rows } = await store.pool.query("select count(*)::int as n from task_events where message = 'reaped'");
    assert.equal(rows[0].n, 8);
  });
});

describe('PostgreSQL store: bad URLs and an unreachable server', () => {
  test('a malformed URL is a clear error, naming no password', async () => {
    const { openStore, DatabaseUrlError } = await import('../src/index.ts');
    for (const url of ['not a url', 'mysql://u:pw@host/db', 'postgres://u:pw@host:5432', 'postgres://u:pw@/db']) {
      await assert.rejects(openStore({ databaseUrl: url }), (error: Error) => {
        assert.ok(error instanceof DatabaseUrlError, `${url}: ${error.message}`);
        assert.equal(error.message.includes('pw'), false);
        return true;
      });
    }
    await assert.rejects(openStore({ databaseUrl: 'postgres://h/db', databasePath: 'x.db' }), /choose one store/);
  });

  test('an unreachable server fails the open at once, naming host and database, never the password', async () => {
    const started = Date.now();
    await assert.rejects(openPostgresStore('postgres://reflow:hunter2@127.0.0.1:1/reflow'), (error: Error) => {
      assert.match(error.message, /127\.0\.0\.1:1\/reflow/);
      assert.equal(error.message.includes('hunter2'), false);
      return true;
    });
    assert.ok(Date.now() - started < 6000);
  });
});
