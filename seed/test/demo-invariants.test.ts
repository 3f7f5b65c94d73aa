// The demo month keeps every promise of the brief: the story's numbers and a valid import file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { DEMO_AFFECTED, DEMO_SCENARIO, DEMO_SITE_PATH, readSiteFile } from '../index.ts';
import { checkSite } from './check-site.ts';

const site = readSiteFile(DEMO_SITE_PATH);
const zone = site.site.timezone;
const isConfirmed = (b: { status?: string }) => (b.status ?? 'confirmed') === 'confirmed';

test('the site is Riverside Studios in Europe/London with varied rooms', () => {
  assert.deepEqual(site.site, { name: 'Riverside Studios', timezone: 'Europe/London' });
  assert.ok(site.rooms.length >= 6);
  assert.ok(new Set(site.rooms.map((r) => r.capacity)).size >= 4);
  assert.ok(new Set(site.rooms.map((r) => `${r.opensAt}-${r.closesAt}`)).size >= 2);
  assert.ok(site.rooms.some((r) => r.id === 'studio-b'));
});

test('the scenario names the month, the room and the fortnight', () => {
  assert.deepEqual(DEMO_SCENARIO, {
    month: '2026-09',
    offline_rooms: ['studio-b'],
    from: '2026-09-07',
    to: '2026-09-20',
  });
});

test(`exactly ${DEMO_AFFECTED} confirmed studio-b bookings overlap the offline window`, () => {
  const start = DateTime.fromISO('2026-09-07', { zone }).startOf('day');
  const end = DateTime.fromISO('2026-09-20', { zone }).startOf('day').plus({ days: 1 });
  assert.equal(start.toUTC().toISO(), '2026-09-06T23:00:00.000Z');
  assert.equal(end.toUTC().toISO(), '2026-09-20T23:00:00.000Z');
  const affected = site.bookings.filter(
    (b) =>
      b.roomId === 'studio-b' && isConfirmed(b) && DateTime.fromISO(b.start) < end && DateTime.fromISO(b.end) > start,
  );
  assert.equal(affected.length, 142);
  assert.equal(DEMO_AFFECTED, 142);
});

test('the site passes every invariant (ids, hours, capacity, features, overlaps, series)', () => {
  assert.deepEqual(checkSite(site), []);
});

test('every booking is in September 2026 with the London offset', () => {
  for (const b of site.bookings) {
    assert.match(b.start, /^2026-09-\d{2}T\d{2}:\d{2}:00\+01:00$/, b.id);
    assert.match(b.end, /^2026-09-\d{2}T\d{2}:\d{2}:00\+01:00$/, b.id);
  }
});

test('the month looks like a real diary: series, one-offs, cancellations, flex', () => {
  const inSeries = site.bookings.filter((b) => b.seriesId);
  assert.ok(site.series.length >= 20);
  assert.ok(inSeries.length > 100 && inSeries.length < site.bookings.length / 2);
  const cancelled = site.bookings.filter((b) => b.status === 'cancelled').length;
  assert.ok(cancelled >= 3 && cancelled < site.bookings.length / 10);
  const flex = new Set(site.bookings.map((b) => b.flexMinutes ?? 0));
  assert.deepEqual(
    [...flex].sort((x, y) => x - y),
    [0, 15, 30, 60, 90, 120],
  );
  for (const s of site.series) {
    const weeks = site.bookings.filter((b) => b.seriesId === s.id).length;
    assert.ok(weeks >= 3, `${s.id} has ${weeks} bookings`);
  }
});
