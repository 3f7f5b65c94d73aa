// checkPlan must catch every kind of broken plan: each test breaks exactly one rule and expects
// a violation naming it, while the well-formed plan passes clean.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkPlan, solve, type Move, type Plan, type Problem } from '../src/index.ts';
import { at, booking, MINUTE, problem, room } from './helpers.ts';

const P: Problem = problem(
  [
    room('a', { capacity: 10, features: ['piano'] }),
    room('b', { capacity: 10 }),
    room('c', { capacity: 4, days: [0, 2] }),
  ],
  [
    booking('m1', 'b', 1, '10:00', '11:00', { flex: 30 }),
    booking('m2', 'b', 1, '12:00', '13:00', { attendees: 8 }),
    booking('keep', 'a', 1, '14:00', '15:00'),
    booking('other-day', 'b', 2, '10:00', '11:00'),
  ],
  ['b'],
);

function move(bookingId: string, toRoom: string, toStart: number): Move {
  const b = P.bookings.find((x) => x.id === bookingId)!;
  return {
    bookingId,
    fromRoom: b.roomId,
    toRoom,
    fromStart: b.start,
    toStart,
    shiftMinutes: (toStart - b.start) / MINUTE,
  };
}

/** A plan whose bookkeeping is consistent with its moves, so only the intended rule breaks. */
function planOf(moves: Move[]): Plan {
  const moved = new Set(moves.map((m) => m.bookingId));
  return {
    affected: 2,
    moves,
    unresolved: ['m1', 'm2']
      .filter((id) => !moved.has(id))
      .map((bookingId) => ({ bookingId, code: 'rooms_busy', reason: 'x' })),
    optimal: { moved: false, shift: false, series: false },
    movedBound: 2,
    totalShiftMinutes: moves.reduce((s, m) => s + Math.abs(m.shiftMinutes), 0),
    seriesSplit: 0,
    components: 1,
    engines: { javascriptLpSolver: 0, highs: 0 },
  };
}

function expectViolation(plan: Plan, pattern: RegExp): void {
  const violations = checkPlan(P, plan);
  assert.ok(
    violations.some((v) => pattern.test(v)),
    `expected ${pattern}, got ${JSON.stringify(violations)}`,
  );
}

test('a sound plan, and the solver plan, have no violations', () => {
  assert.deepEqual(checkPlan(P, planOf([move('m1', 'a', at(1, '10:00')), move('m2', 'a', at(1, '12:00'))])), []);
  assert.deepEqual(checkPlan(P, solve(P)), []);
});

test('overlap with a booking that stays put', () =>
  expectViolation(planOf([move('m2', 'a', at(1, '14:30'))]), /overlaps booking keep/));
test('two moves overlapping in one room', () =>
  expectViolation(
    planOf([move('m1', 'a', at(1, '11:30')), move('m2', 'a', at(1, '12:00'))]),
    /overlaps moved booking/,
  ));
test('capacity', () => expectViolation(planOf([move('m2', 'c', at(0, '12:00'))]), /holds 4, booking needs 8/));
test('features', () => {
  const p: Problem = {
    ...P,
    bookings: P.bookings.map((b) => (b.id === 'm1' ? { ...b, requiredFeatures: ['piano'] } : b)),
  };
  const violations = checkPlan(p, planOf([move('m1', 'b', at(2, '12:00'))]));
  assert.ok(
    violations.some((v) => /lacks piano/.test(v)),
    JSON.stringify(violations),
  );
});
test('opening hours: closed day', () => expectViolation(planOf([move('m1', 'c', at(1, '10:00'))]), /not open/));
test('opening hours: past closing', () => expectViolation(planOf([move('m1', 'a', at(1, '22:30'))]), /not open/));
test('shift not a multiple of 15 minutes', () =>
  expectViolation(planOf([move('m1', 'a', at(1, '10:10'))]), /not a multiple of 15/));
test('shift beyond flex', () => expectViolation(planOf([move('m1', 'a', at(1, '11:00'))]), /exceeds its flex of 30/));
test('offline room during the window', () =>
  expectViolation(planOf([move('m1', 'b', at(1, '10:30'))]), /b is offline/));
test('a booking the outage does not affect', () => {
  const plan = planOf([move('other-day', 'a', at(2, '10:00'))]);
  expectViolation(plan, /other-day: is not affected/);
});
test('unknown booking and unknown room', () => {
  expectViolation(
    planOf([{ ...move('m1', 'a', at(1, '10:00')), bookingId: 'ghost' }]),
    /ghost: moved, but no such booking/,
  );
  expectViolation(planOf([move('m1', 'zzz', at(1, '10:00'))]), /unknown room zzz/);
});
test('a move that does not start from the booking', () =>
  expectViolation(planOf([{ ...move('m1', 'a', at(1, '10:00')), fromRoom: 'c' }]), /does not start from the booking/));
test('shiftMinutes disagreeing with the times', () =>
  expectViolation(planOf([{ ...move('m1', 'a', at(1, '10:15')), shiftMinutes: 0 }]), /shiftMinutes says 0/));
test('bookkeeping: duplicates, missing bookings, totals and claims', () => {
  const good = planOf([move('m1', 'a', at(1, '10:00'))]);
  expectViolation({ ...good, moves: [...good.moves, ...good.moves] }, /more than once/);
  expectViolation({ ...good, unresolved: [] }, /m2: affected but neither moved nor unresolved/);
  expectViolation(
    { ...good, unresolved: [...good.unresolved, { bookingId: 'm1', code: 'outcompeted', reason: 'x' }] },
    /m1: listed more than once/,
  );
  expectViolation({ ...good, affected: 3 }, /counts 3 affected/);
  expectViolation({ ...good, totalShiftMinutes: 99 }, /totalShiftMinutes is 99/);
  expectViolation({ ...good, movedBound: 0 }, /movedBound 0 is below/);
  expectViolation({ ...good, optimal: { moved: true, shift: false, series: false } }, /claims an optimal move count/);
  expectViolation(
    { ...good, optimal: { moved: false, shift: true, series: false } },
    /optimal shift without optimal moves/,
  );
  expectViolation(
    { ...good, optimal: { moved: false, shift: false, series: true } },
    /optimal series split without optimal shift/,
  );
  expectViolation({ ...good, seriesSplit: 3 }, /seriesSplit is 3/);
});
