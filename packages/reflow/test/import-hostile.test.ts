// Hostile site files: wrong shapes, oversized strings, odd characters and prototype keys are
// refused whole with an error naming where, and nothing is written.
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
  await importSite(demo, store);
});
after(async () => {
  await opened.close();
});

const snapshot = async () =>
  JSON.stringify([
    await opened.sql.all('SELECT * FROM bookings ORDER BY id'),
    await opened.sql.all('SELECT * FROM rooms ORDER BY id'),
    await opened.sql.all('SELECT * FROM site'),
  ]);

test('hostile site files are refused with the place named, and change nothing', async () => {
  const cases: [string, () => unknown, RegExp][] = [
    ['null', () => null, /Invalid site file: file: /],
    ['an array', () => [demo], /Invalid site file: file: /],
    ['a string', () => JSON.stringify(demo), /Invalid site file: file: /],
    ['no rooms', () => ({ ...demo, rooms: [] }), /rooms: must list at least one room/],
    ['rooms not a list', () => ({ ...demo, rooms: { 'studio-a': demo.rooms[0] } }), /rooms: /],
    [
      'a 10 kB title',
      () => edit((f) => (f.bookings[4].title = 't'.repeat(10_000))),
      /bookings\[4\] \(bk-\d+\)\.title: /,
    ],
    ['a 10 kB site name', () => edit((f) => (f.site.name = 'n'.repeat(10_000))), /site\.name: /],
    [
      'a room id with a space',
      () => edit((f) => (f.rooms[2].id = 'studio c')),
      /rooms\[2\] \(studio c\)\.id: may hold only letters, digits/,
    ],
    [
      'a room id with a NUL',
      () => edit((f) => (f.rooms[2].id = 'studio-c\u0000')),
      /rooms\[2\] .*\.id: may hold only letters, digits/,
    ],
    [
      'a booking id of 101 characters',
      () => edit((f) => (f.bookings[0].id = 'b'.repeat(101))),
      /bookings\[0\] .*\.id: /,
    ],
    ['negative attendees', () => edit((f) => (f.bookings[9].attendees = -3)), /bookings\[9\] \(bk-\d+\)\.attendees: /],
    ['fractional capacity', () => edit((f) => (f.rooms[0].capacity = 2.5)), /rooms\[0\] \(studio-a\)\.capacity: /],
    ['a huge capacity', () => edit((f) => (f.rooms[0].capacity = 1e12)), /rooms\[0\] \(studio-a\)\.capacity: /],
    [
      'flex not a multiple of 15',
      () => edit((f) => (f.bookings[6].flexMinutes = 7)),
      /bookings\[6\] \(bk-\d+\)\.flexMinutes: must be a multiple of 15/,
    ],
    ['features not a list', () => edit((f) => (f.rooms[1].features = 'drums')), /rooms\[1\] \(studio-b\)\.features: /],
    ['an unknown status', () => edit((f) => (f.bookings[8].status = 'deleted')), /bookings\[8\] \(bk-\d+\)\.status: /],
    [
      'a date-time that is not one',
      () => edit((f) => (f.bookings[3].start = '2026-09-31T10:00:00+01:00')),
      /bookings\[3\] \(bk-\d+\)\.start: must be an ISO 8601 date-time/,
    ],
    [
      'a __proto__ key',
      () => JSON.parse(JSON.stringify(demo).replace('{"site":', '{"__proto__":{"polluted":true},"site":')),
      /Invalid site file: .*__proto__|Unrecognized key/,
    ],
    [
      'a constructor key on a room',
      () => edit((f) => (f.rooms[0].constructor = { prototype: { polluted: true } })),
      /rooms\[0\] \(studio-a\)/,
    ],
  ];
  const before = await snapshot();
  for (const [name, build, message] of cases) {
    await assert.rejects(importSite(build(), store, { replace: true }), (e: unknown) => {
      assert.ok(e instanceof ReflowInputError, `${name}: ${String(e)}`);
      assert.match(e.message, message, name);
      return true;
    });
    assert.equal(await snapshot(), before, `${name}: nothing written`);
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was polluted');
});

function edit(mutate: (file: any) => void): unknown {
  const file = structuredClone(demo);
  mutate(file);
  return file;
}
