// The solver scenarios: deterministic by seed, the asked-for number of offline rooms, rooms
// 30–70 % booked, flex from 0 to 2 hours, weekly series and one-offs, and a default outage that
// crosses the Europe/London clock change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { generateScenario, SCENARIO_SIZES } from '../index.ts';
import { checkSite } from './check-site.ts';

test('the same seed gives the same scenario; the outage has the asked-for rooms', () => {
  const a = generateScenario({ seed: 11, rooms: 12, offline: 3 });
  assert.deepEqual(generateScenario({ seed: 11, rooms: 12, offline: 3 }), a);
  assert.notDeepEqual(generateScenario({ seed: 12, rooms: 12, offline: 3 }).offline_rooms, a.offline_rooms);
  assert.equal(new Set(a.offline_rooms).size, 3);
  assert.ok(a.offline_rooms.every((id) => a.site.rooms.some((r) => r.id === id)));
  assert.deepEqual([a.from, a.to], ['2026-10-14', '2026-10-27']);
  assert.deepEqual(checkSite(a.site), []);
});

test('utilisation 30–70 %, flex 0–120 min, series and one-offs, across seeds', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const { site } = generateScenario({ seed, ...SCENARIO_SIZES.large });
    const confirmed = site.bookings.filter((b) => (b.status ?? 'confirmed') === 'confirmed');
    const booked = confirmed.reduce(
      (n, b) => n + DateTime.fromISO(b.end).diff(DateTime.fromISO(b.start), 'minutes').minutes,
      0,
    );
    const open = site.rooms.reduce((n, r) => {
      const [oh, om] = r.opensAt.split(':').map(Number);
      const [ch, cm] = r.closesAt.split(':').map(Number);
      return n + 31 * (ch * 60 + cm - oh * 60 - om);
    }, 0);
    const utilisation = booked / open;
    assert.ok(utilisation >= 0.3 && utilisation <= 0.7, `seed ${seed}: utilisation ${utilisation.toFixed(2)}`);
    const flex = new Set(confirmed.map((b) => b.flexMinutes ?? 0));
    assert.ok(flex.has(0) && flex.has(120) && Math.max(...flex) <= 120, `seed ${seed}: flex ${[...flex].join(',')}`);
    assert.ok(site.series.length > 50 && confirmed.some((b) => !b.seriesId), `seed ${seed}: series and one-offs`);
  }
});

test('bad options are refused with the reason', () => {
  assert.throws(
    () => generateScenario({ seed: 1, rooms: 4, offline: 4 }),
    /offline must be an integer from 1 to rooms − 1 \(3\), got 4/,
  );
  assert.throws(() => generateScenario({ seed: 1, rooms: 4, offline: 0 }), /offline must be/);
});
