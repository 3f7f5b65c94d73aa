// The generator beyond the demo: deterministic, valid for other seeds, sizes, zones and months.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateSite } from '../index.ts';
import { checkSite } from './check-site.ts';

test('the same options give the same site; another seed gives another', () => {
  const a = generateSite({ seed: 7, month: '2026-09' });
  assert.deepEqual(generateSite({ seed: 7, month: '2026-09' }), a);
  assert.notDeepEqual(generateSite({ seed: 8, month: '2026-09' }), a);
});

test('a 40-room campus is valid, with generated rooms after the named ones', () => {
  const site = generateSite({ seed: 99, month: '2026-10', rooms: 40 });
  assert.equal(site.rooms.length, 40);
  assert.equal(site.rooms[0].id, 'studio-a');
  assert.equal(new Set(site.rooms.map((r) => r.id)).size, 40);
  assert.ok(site.bookings.length > 3000);
  assert.deepEqual(checkSite(site), []);
});

test('a month across a DST change in another zone keeps wall-clock series and local offsets', () => {
  const site = generateSite({ seed: 3, month: '2026-11', timezone: 'America/New_York', rooms: 12 });
  assert.deepEqual(checkSite(site), []);
  assert.ok(site.bookings.some((b) => b.start.endsWith('-05:00')));
  const london = generateSite({ seed: 3, month: '2026-10', rooms: 5 });
  assert.deepEqual(checkSite(london), []);
  assert.ok(
    london.bookings.some((b) => b.start.endsWith('+01:00')) && london.bookings.some((b) => b.start.endsWith('+00:00')),
  );
});

test('a small site and the density knobs stay valid', () => {
  const small = generateSite({ seed: 5, month: '2027-02', rooms: 3, density: 0.5, seriesPerRoom: 1 });
  assert.equal(small.rooms.length, 3);
  assert.deepEqual(checkSite(small), []);
  const dense = generateSite({ seed: 5, month: '2027-02', rooms: 3, density: 1.5 });
  assert.ok(dense.bookings.length > small.bookings.length);
  assert.deepEqual(checkSite(dense), []);
});

test('a pinned count is exact', () => {
  const pin = { roomId: 'studio-c', from: '2026-09-01', to: '2026-09-10', confirmed: 20 };
  const site = generateSite({ seed: 11, month: '2026-09', pin });
  const count = site.bookings.filter(
    (b) => b.roomId === 'studio-c' && !b.status && b.start.slice(0, 10) >= pin.from && b.start.slice(0, 10) <= pin.to,
  ).length;
  assert.equal(count, 20);
});

test('bad options are refused with a clear error', () => {
  assert.throws(() => generateSite({ seed: 1, month: '2026-13' }), /month must be YYYY-MM/);
  assert.throws(() => generateSite({ seed: 1, month: '2026-09', rooms: 0 }), /rooms must be a positive integer/);
  assert.throws(() => generateSite({ seed: 1, month: '2026-09', timezone: 'Mars/Olympus' }), /invalid time zone/);
});
