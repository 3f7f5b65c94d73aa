// Importing a site: validated whole, written in one transaction; a bad file changes nothing and
// the error names the record and the field.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { Store } from '@reflow/db';
import { DEMO_SITE_PATH } from '@reflow/seed';
import { importSite, ReflowInputError } from '../src/index.ts';
import { openReflowTestStore, type ReflowTestStore } from './reflow-test-store.ts';

const demo = JSON.parse(readFileSync(DEMO_SITE_PATH, 'utf8'));
let opened: ReflowTestStore;
let store: Store;

before(async () => {
  opened = await openReflowTestStore();
  store = opened.store;
});
after(async () => {
  await opened.close();
});

const checksum = async () =>
  JSON.stringify(
    await opened.sql.all('SELECT id, room_id, start_at, end_at, status, version FROM bookings ORDER BY id'),
  );

test('the demo month imports whole', async () => {
  const summary = await importSite(demo, store);
  assert.deepEqual(summary, {
    site: 'Riverside Studios',
    rooms: demo.rooms.length,
    series: demo.series.length,
    bookings: demo.bookings.length,
  });
});

test('a second import without --replace is refused and changes nothing', async () => {
  const before = await checksum();
  await assert.rejects(
    importSite(demo, store),
    (e: unknown) => e instanceof ReflowInputError && e.code === 'RFL_SITE_EXISTS',
  );
  assert.equal(await checksum(), before);
});

test('bad files name the record and field, and change nothing', async () => {
  const clone = () => structuredClone(demo);
  const cases: [string, (f: any) => void, RegExp][] = [
    [
      'unknown room',
      (f) => (f.bookings[5].roomId = 'studio-z'),
      /bookings\[5\] \(bk-\d+\)\.roomId: unknown room studio-z/,
    ],
    [
      'no offset',
      (f) => (f.bookings[3].start = '2026-09-01T10:00:00'),
      /bookings\[3\] \(bk-\d+\)\.start: must be an ISO 8601 date-time with an offset/,
    ],
    [
      'end before start',
      (f) => (f.bookings[2].end = f.bookings[2].start),
      /bookings\[2\] \(bk-\d+\)\.end: must be after start/,
    ],
    ['wrong type', (f) => (f.bookings[7].attendees = 'six'), /bookings\[7\] \(bk-\d+\)\.attendees/],
    ['bad zone', (f) => (f.site.timezone = 'Mars/Olympus'), /site\.timezone: Mars\/Olympus is not an IANA time zone/],
    ['bad hours', (f) => (f.rooms[0].opensAt = '25:00'), /rooms\[0\] \(studio-a\)\.opensAt: must be a time HH:MM/],
    ['duplicate id', (f) => (f.bookings[1].id = f.bookings[0].id), /duplicate booking id/],
    [
      'unknown series',
      (f) => (f.bookings.find((b: any) => b.seriesId).seriesId = 'ser-nope'),
      /seriesId: unknown series ser-nope/,
    ],
    ['unknown field', (f) => (f.rooms[1].colour = 'red'), /rooms\[1\] \(studio-b\)/],
    [
      'overlap',
      (f) => {
        const [a, b] = f.bookings.filter((x: any) => x.roomId === 'studio-c' && !x.status);
        b.start = a.start;
        b.end = a.end;
      },
      /overlaps confirmed booking/,
    ],
  ];
  const before = await checksum();
  for (const [name, mutate, message] of cases) {
    const file = clone();
    mutate(file);
    await assert.rejects(importSite(file, store, { replace: true }), (e: unknown) => {
      assert.ok(e instanceof ReflowInputError, name);
      assert.match(e.message, message, name);
      return true;
    });
    assert.equal(await checksum(), before, `${name}: nothing written`);
  }
});

test('--replace swaps the site in one transaction', async () => {
  const file = structuredClone(demo);
  file.bookings = file.bookings.slice(0, 10);
  await importSite(file, store, { replace: true });
  assert.equal(await store.site.bookingCount(), 10);
});

test('two replacing imports at once, through two stores (two nodes), each write the next generation', async () => {
  const other = await opened.another();
  // Read from the database itself: a PostgreSQL node's cached site hears of another node's import a moment later.
  const generation = async () =>
    (await opened.sql.all<{ generation: number }>('SELECT generation FROM site'))[0].generation;
  const before = await generation();
  await Promise.all([importSite(demo, store, { replace: true }), importSite(demo, other, { replace: true })]);
  assert.equal(await generation(), before + 2);
  assert.equal(await store.site.bookingCount(), demo.bookings.length);
});
