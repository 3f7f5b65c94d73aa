// The wall-clock cache behind opening hours must give luxon's own answer on every day, including
// clock changes (a gap in spring, a repeated hour in autumn), on the first call and on every later one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { atLocalTime, clearLocalTimeCache } from '../src/local-time.ts';

/** The conversion as luxon does it, with no cache: the reference. */
function luxonInstant(date: string, hhmm: string, zone: string): number {
  const day = DateTime.fromISO(date, { zone }).startOf('day');
  const [h, m] = hhmm.split(':').map(Number);
  return (h === 24 ? day.plus({ days: 1 }) : day.set({ hour: h, minute: m })).toMillis();
}

// London, a zone behind UTC, a half-hour DST shift and one that moved its date line.
const ZONES = ['Europe/London', 'America/New_York', 'Australia/Lord_Howe', 'Pacific/Apia', 'UTC'];
const day = fc
  .integer({ min: 0, max: 3 * 366 })
  .map((n) => DateTime.fromISO('2025-01-01').plus({ days: n }).toISODate()!);
const hhmm = fc
  .oneof(
    fc.tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45)),
    fc.constant<[number, number]>([24, 0]),
  )
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);

test('every zone, date and time: the cached instant is luxon’s, cold and warm', () => {
  fc.assert(
    fc.property(fc.constantFrom(...ZONES), day, hhmm, fc.boolean(), (zone, date, time, cold) => {
      if (cold) clearLocalTimeCache();
      const expected = luxonInstant(date, time, zone);
      assert.equal(atLocalTime(date, time, zone), expected);
      assert.equal(atLocalTime(date, time, zone), expected);
    }),
    { numRuns: 2000 },
  );
});

test('the Europe/London clock change in late October 2026, through the cache', () => {
  clearLocalTimeCache();
  const zone = 'Europe/London';
  for (let pass = 0; pass < 2; pass++) {
    // Saturday is still BST (+01:00); Sunday 25th falls back at 02:00 BST to 01:00 GMT.
    assert.equal(atLocalTime('2026-10-24', '09:00', zone), Date.parse('2026-10-24T08:00:00Z'));
    assert.equal(atLocalTime('2026-10-25', '00:00', zone), Date.parse('2026-10-24T23:00:00Z'));
    assert.equal(atLocalTime('2026-10-25', '09:00', zone), Date.parse('2026-10-25T09:00:00Z'));
    assert.equal(atLocalTime('2026-10-25', '24:00', zone), Date.parse('2026-10-26T00:00:00Z'));
    // The day is 25 hours long: its opening hours 00:00–24:00 span 25 h.
    assert.equal(atLocalTime('2026-10-25', '24:00', zone) - atLocalTime('2026-10-25', '00:00', zone), 25 * 3_600_000);
    // Spring forward (29 March 2026): 23 hours.
    assert.equal(atLocalTime('2026-03-29', '24:00', zone) - atLocalTime('2026-03-29', '00:00', zone), 23 * 3_600_000);
  }
});

test('the same date and time in two zones are two entries, not one', () => {
  clearLocalTimeCache();
  const london = atLocalTime('2026-10-25', '09:00', 'Europe/London');
  const newYork = atLocalTime('2026-10-25', '09:00', 'America/New_York');
  assert.equal(newYork - london, 4 * 3_600_000);
});
