// One instance per unresolved code, checking the code and that the sentence names what a
// person needs to act on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { solve } from '../src/index.ts';
import { assertFeasible, booking, problem, room } from './helpers.ts';

test('no_suitable_room: names the need and the largest room that has the features', () => {
  const p = problem(
    [
      room('studio-b', { capacity: 16, features: ['vocal-booth'] }),
      room('studio-c', { capacity: 8, features: ['vocal-booth'] }),
      room('studio-a', { capacity: 20 }),
    ],
    [booking('x', 'studio-b', 1, '10:00', '11:00', { attendees: 14, features: ['vocal-booth'], flex: 60 })],
    ['studio-b'],
  );
  const plan = solve(p);
  assertFeasible(p, plan);
  assert.equal(plan.unresolved[0].code, 'no_suitable_room');
  assert.match(
    plan.unresolved[0].reason,
    /^No room holds 14 people with vocal-booth \(largest with vocal-booth: studio-c, 8\)/,
  );
  assert.match(plan.unresolved[0].reason, /studio-b would fit but is offline/);
});

test('no_suitable_room: a feature no room has', () => {
  const p = problem([room('a'), room('b')], [booking('x', 'b', 1, '10:00', '11:00', { features: ['organ'] })], ['b']);
  const plan = solve(p);
  assert.equal(plan.unresolved[0].code, 'no_suitable_room');
  assert.match(plan.unresolved[0].reason, /^No room has organ/);
});

test('rooms_busy: names the suitable rooms and the time with its flex', () => {
  const p = problem(
    [room('studio-a'), room('studio-b'), room('studio-d'), room('tiny', { capacity: 1 })],
    [
      booking('x', 'studio-b', 1, '10:00', '12:00', { flex: 60, attendees: 3 }),
      booking('busy-a', 'studio-a', 1, '08:00', '14:00'),
      booking('busy-d', 'studio-d', 1, '09:30', '13:30'),
    ],
    ['studio-b'],
  );
  const plan = solve(p);
  assertFeasible(p, plan);
  assert.equal(plan.unresolved[0].code, 'rooms_busy');
  assert.equal(
    plan.unresolved[0].reason,
    'Suitable rooms studio-a, studio-d are booked or closed throughout 2026-09-08T10:00Z–2026-09-08T12:00Z ±60 min',
  );
});

test('outcompeted: counts the free slots and the moved bookings that took them', () => {
  // Three bookings want the one free hour in studio-a; two of them have to lose.
  const p = problem(
    [room('studio-a'), room('studio-b'), room('studio-c')],
    [
      booking('x', 'studio-b', 1, '10:00', '11:00'),
      booking('y', 'studio-c', 1, '10:00', '11:00', { flex: 15 }),
      booking('z', 'studio-c', 1, '11:00', '12:00', { flex: 15 }),
      booking('before', 'studio-a', 1, '08:00', '10:00'),
      booking('after', 'studio-a', 1, '11:00', '13:00'),
    ],
    ['studio-b', 'studio-c'],
  );
  const plan = solve(p);
  assertFeasible(p, plan);
  assert.equal(plan.moves.length, 1);
  assert.deepEqual(plan.optimal, { moved: true, shift: true, series: true });
  assert.deepEqual(
    plan.moves.map((m) => m.bookingId),
    ['x'],
  );
  const y = plan.unresolved.find((u) => u.bookingId === 'y')!;
  assert.equal(y.code, 'outcompeted');
  assert.equal(y.reason, 'The only free slot in studio-a went to 1 other moved booking');
  assert.equal(plan.unresolved.find((u) => u.bookingId === 'z')?.code, 'rooms_busy');
});
