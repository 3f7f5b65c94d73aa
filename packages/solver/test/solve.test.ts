// The placement rules on hand-made instances, each small enough to see the right answer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { solve, type Problem } from '../src/index.ts';
import { assertFeasible, at, booking, problem, room } from './helpers.ts';

function solved(p: Problem) {
  const plan = solve(p);
  assertFeasible(p, plan);
  return plan;
}

test('no affected bookings: an empty, proven plan', () => {
  const plan = solved(problem([room('a'), room('b')], [booking('x', 'a', 1, '10:00', '11:00')], ['b']));
  assert.deepEqual(plan, {
    affected: 0,
    moves: [],
    unresolved: [],
    optimal: { moved: true, shift: true, series: true },
    movedBound: 0,
    totalShiftMinutes: 0,
    seriesSplit: 0,
    components: 0,
    engines: { javascriptLpSolver: 0, highs: 0 },
  });
});

test('moves to another room at the same time, preferring the lower room id', () => {
  const plan = solved(
    problem([room('c'), room('a'), room('b')], [booking('x', 'b', 1, '10:00', '11:00', { flex: 60 })], ['b']),
  );
  assert.deepEqual(plan.moves, [
    { bookingId: 'x', fromRoom: 'b', toRoom: 'a', fromStart: at(1, '10:00'), toStart: at(1, '10:00'), shiftMinutes: 0 },
  ]);
  assert.equal(plan.optimal.shift, true);
});

test('an offline room is usable outside the window: shift out of it in the same room', () => {
  // Window ends at 12:00 on day 1; the booking can start at 12:00 with 60 min of flex.
  const p: Problem = {
    ...problem([room('b')], [booking('x', 'b', 1, '11:00', '12:00', { flex: 60 })], ['b']),
    window: { start: at(1, '00:00'), end: at(1, '12:00') },
  };
  const plan = solved(p);
  assert.equal(plan.moves[0].toRoom, 'b');
  assert.equal(plan.moves[0].toStart, at(1, '12:00'));
  assert.equal(plan.moves[0].shiftMinutes, 60);
});

test('touching ends are fine; a one-minute overlap is not', () => {
  const rooms = [room('a'), room('b')];
  const touching = solved(
    problem(rooms, [booking('keep', 'a', 1, '09:00', '10:00'), booking('x', 'b', 1, '10:00', '11:00')], ['b']),
  );
  assert.equal(touching.moves.length, 1);
  const overlapping = solved(
    problem(rooms, [booking('keep', 'a', 1, '09:00', '10:01'), booking('x', 'b', 1, '10:00', '11:00')], ['b']),
  );
  assert.equal(overlapping.moves.length, 0);
});

test('flex that is not a multiple of 15 rounds down to whole slots', () => {
  const rooms = [room('a'), room('b')];
  const p = problem(
    rooms,
    [booking('keep', 'a', 1, '10:00', '10:20'), booking('x', 'b', 1, '10:00', '11:00', { flex: 25 })],
    ['b'],
  );
  const plan = solved(p);
  // +15 still overlaps until 10:20; +30 would fit but exceeds the flex.
  assert.equal(plan.moves.length, 0);
  const looser = solved({ ...p, bookings: p.bookings.map((b) => (b.id === 'x' ? { ...b, flexMinutes: 30 } : b)) });
  assert.equal(looser.moves[0].shiftMinutes, 30);
});

test('capacity and features decide the room', () => {
  const rooms = [
    room('a', { capacity: 4 }),
    room('b'),
    room('c', { capacity: 6 }),
    room('d', { capacity: 20, features: ['piano'] }),
  ];
  const plan = solved(
    problem(
      rooms,
      [
        booking('x', 'b', 1, '10:00', '11:00', { attendees: 6 }),
        booking('y', 'b', 1, '12:00', '13:00', { features: ['piano'] }),
      ],
      ['b'],
    ),
  );
  assert.deepEqual(
    plan.moves.map((m) => [m.bookingId, m.toRoom]),
    [
      ['x', 'c'],
      ['y', 'd'],
    ],
  );
});

test('competition: one booking shifts so both move (more moves beat less shift)', () => {
  const rooms = [room('a'), room('b'), room('c')];
  const p = problem(
    rooms,
    [booking('x', 'b', 1, '10:00', '11:00', { flex: 0 }), booking('y', 'c', 1, '10:30', '11:30', { flex: 30 })],
    ['b', 'c'],
  );
  const plan = solved(p);
  assert.equal(plan.moves.length, 2);
  assert.equal(plan.totalShiftMinutes, 30);
  assert.deepEqual(plan.optimal, { moved: true, shift: true, series: true });
});

test('bookings in an offline room outside the window still block it', () => {
  const p: Problem = {
    ...problem(
      [room('b')],
      [booking('x', 'b', 1, '11:00', '12:00', { flex: 60 }), booking('later', 'b', 1, '12:00', '12:30')],
      ['b'],
    ),
    window: { start: at(1, '00:00'), end: at(1, '12:00') },
  };
  const plan = solved(p);
  assert.equal(plan.affected, 1);
  assert.equal(plan.moves.length, 0);
  const further = solved({ ...p, bookings: p.bookings.map((b) => (b.id === 'x' ? { ...b, flexMinutes: 90 } : b)) });
  assert.equal(further.moves[0]?.toStart, at(1, '12:30'));
});
