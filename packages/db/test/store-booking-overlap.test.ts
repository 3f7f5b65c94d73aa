// The last line of defence, on both stores: the database itself refuses two confirmed bookings
// overlapping in one room (SQLite: triggers; PostgreSQL: an exclusion constraint), whatever writes
// them, the service or a statement behind it; an apply's vacate-then-move may swap two slots.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { PostgresStore, SqliteStore, type Store } from '../src/index.ts';
import { STORE_KINDS, opener, smallSite } from './store-harness.ts';

const HOUR = 3_600_000;

/** Runs `text` on the store's database directly, behind the service. */
async function behindTheService(store: Store, text: string, values: unknown[]): Promise<void> {
  if (store instanceof SqliteStore) store.connection.sqlite.prepare(text.replaceAll(/\$\d/g, '?')).run(...values);
  else if (store instanceof PostgresStore) await store.pool.query(text, values as never[]);
  else throw new Error('unknown store');
}

for (const kind of STORE_KINDS) {
  describe(`bookings never overlap: ${kind.name}`, () => {
    const open = opener(kind);

    test('a direct write putting one confirmed booking on another in the same room is refused, and changes nothing', async () => {
      const { store } = await open({ seed: smallSite });
      const bk2 = (await store.bookings.get('bk-2'))!;
      const bk1 = (await store.bookings.get('bk-1'))!;
      // bk-2 (12:00–13:00) onto bk-1 (09:00–11:00) in studio-a.
      await assert.rejects(
        behindTheService(store, 'UPDATE bookings SET start_at = $1, end_at = $2 WHERE id = $3', [
          bk1.startAt + HOUR,
          bk1.endAt + HOUR,
          'bk-2',
        ]),
        (error: Error & { code?: string }) =>
          /RFL_BOOKING_OVERLAP/.test(error.message) || error.code === '23P01' /* exclusion_violation */,
      );
      assert.deepEqual(await store.bookings.get('bk-2'), bk2, 'unchanged');
      // An insert overlapping, and a move into another room on top of bk-3, are refused too.
      await assert.rejects(
        behindTheService(
          store,
          `INSERT INTO bookings (id, room_id, start_at, end_at, title, customer, attendees, required_features, flex_minutes, status, version)
           VALUES ($1, 'studio-a', $2, $3, 'x', 'x', 1, '[]', 0, 'confirmed', 1)`,
          ['bk-new', bk1.startAt, bk1.startAt + HOUR],
        ),
      );
      await assert.rejects(
        store.transaction(async (tx) => {
          const current = (await tx.bookings.get('bk-1'))!;
          await tx.bookings.move('bk-1', current.version, {
            roomId: 'studio-b',
            startAt: current.startAt,
            endAt: current.endAt,
          });
        }),
      );
      assert.deepEqual(await store.bookings.get('bk-1'), bk1, 'the refused move rolled back');
    });

    test('touching ends, and bookings no longer confirmed, may share the time', async () => {
      const { store } = await open({ seed: smallSite });
      const bk1 = (await store.bookings.get('bk-1'))!;
      // bk-2 moved to start exactly where bk-1 ends (11:00).
      await behindTheService(store, 'UPDATE bookings SET start_at = $1, end_at = $2 WHERE id = $3', [
        bk1.endAt,
        bk1.endAt + HOUR,
        'bk-2',
      ]);
      await behindTheService(store, "UPDATE bookings SET status = 'cancelled' WHERE id = $1", ['bk-3']);
      await behindTheService(store, 'UPDATE bookings SET room_id = $1, start_at = $2, end_at = $3 WHERE id = $4', [
        'studio-a',
        bk1.startAt,
        bk1.endAt,
        'bk-3',
      ]);
      await assert.rejects(
        behindTheService(store, "UPDATE bookings SET status = 'confirmed' WHERE id = $1", ['bk-3']),
        'confirming it again on top of bk-1 is refused',
      );
    });

    test("an apply's vacate, then moves, swaps two bookings' slots in one transaction", async () => {
      const { store } = await open({ seed: smallSite });
      const [bk1, bk3] = [(await store.bookings.get('bk-1'))!, (await store.bookings.get('bk-3'))!];
      await store.transaction(async (tx) => {
        await tx.bookings.vacate(['bk-1', 'bk-3']);
        assert.equal(
          await tx.bookings.move('bk-1', bk1.version, { roomId: 'studio-b', startAt: bk3.startAt, endAt: bk3.endAt }),
          true,
        );
        assert.equal(
          await tx.bookings.move('bk-3', bk3.version, { roomId: 'studio-a', startAt: bk1.startAt, endAt: bk1.endAt }),
          true,
        );
      });
      const after = [(await store.bookings.get('bk-1'))!, (await store.bookings.get('bk-3'))!];
      assert.deepEqual(
        after.map((b) => [b.roomId, b.status, b.version]),
        [
          ['studio-b', 'confirmed', bk1.version + 1],
          ['studio-a', 'confirmed', bk3.version + 1],
        ],
      );
    });
  });
}

test('PostgreSQL: an overlapping write waits for the other transaction, then is refused when it commits', async () => {
  const postgres = STORE_KINDS.find((k) => k.name === 'postgres')!;
  const { store, url, done } = await postgres.open({ seed: smallSite });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const bk1 = (await store.bookings.get('bk-1'))!;
    await client.query('BEGIN');
    // Another session puts bk-3 into studio-a at 11:00–12:00 and does not commit yet.
    await client.query('UPDATE bookings SET room_id = $1, start_at = $2, end_at = $3 WHERE id = $4', [
      'studio-a',
      bk1.endAt,
      bk1.endAt + HOUR,
      'bk-3',
    ]);
    // Meanwhile the service moves bk-2 into the same hour: it waits for that session, then fails.
    const racing = store.transaction(async (tx) => {
      const bk2 = (await tx.bookings.get('bk-2'))!;
      return tx.bookings.move('bk-2', bk2.version, { roomId: 'studio-a', startAt: bk1.endAt, endAt: bk1.endAt + HOUR });
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await client.query('COMMIT');
    await assert.rejects(racing, (error: Error & { cause?: { code?: string } }) => error.cause?.code === '23P01');
  } finally {
    await client.end();
    await done();
  }
});
