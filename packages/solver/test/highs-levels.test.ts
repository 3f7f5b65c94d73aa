// The HiGHS path (dominance reduction, independent parts, one level at a time, level 2 stopped at
// its proving gap) against exhaustive search on the 200 random instances: every component with
// more than one variable goes to HiGHS, and the moved count and total shift must be the true
// optimum and proven. Plus the gap rule itself: prices without the series-rooms shape get none.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadHighsEngine, solve } from '../src/index.ts';
import type { Candidate } from '../src/candidates.ts';
import { dropDominated } from '../src/dominance.ts';
import { shiftLevelGap } from '../src/objective.ts';
import { bruteForce } from './brute-force.ts';
import { assertFeasible } from './helpers.ts';
import { randomInstance } from './random-instance.ts';

const SEEDS = Array.from({ length: 200 }, (_, i) => i + 1);

test('HiGHS for every component: moved and shift equal exhaustive search, and are proven', async () => {
  await loadHighsEngine();
  let highs = 0;
  for (const seed of SEEDS) {
    const p = randomInstance(seed);
    const plan = solve(p, { maxCandidatesPerBooking: 1_000, maxJsLpVariables: 1 });
    assertFeasible(p, plan);
    const truth = bruteForce(p);
    assert.equal(plan.moves.length, truth.moved, `seed ${seed}: moved`);
    assert.equal(plan.totalShiftMinutes, truth.shift, `seed ${seed}: shift`);
    assert.ok(plan.optimal.moved && plan.optimal.shift, `seed ${seed}: proven`);
    highs += plan.engines.highs;
  }
  assert.ok(highs > 30, `HiGHS solved ${highs} components`);
});

const slot = (booking: number, roomId: string, hour: number, cost: number, penalty = cost): Candidate => ({
  booking,
  roomId,
  start: hour * 3_600_000,
  end: (hour + 1) * 3_600_000,
  shift: cost,
  cost,
  penalty,
});

test('dominance drops a twin room and a dearer slot nobody else wants, keeps what matters', () => {
  // Booking 0: rooms a and b at 9 (twins: nothing else there), room c at 9 where booking 1 sits,
  // and room a at 10 dearer. Booking 1 only has room c at 9.
  const candidates = [
    [slot(0, 'a', 9, 0), slot(0, 'b', 9, 0), slot(0, 'c', 9, 0), slot(0, 'a', 10, 15)],
    [slot(1, 'c', 9, 0)],
  ];
  const reduced = dropDominated(candidates);
  assert.deepEqual(
    reduced[0].map((c) => `${c.roomId}@${c.start / 3_600_000}`),
    ['a@9'],
  );
  assert.deepEqual(
    reduced[1].map((c) => c.roomId),
    ['c'],
  );
});

test('the level-2 gap: 15·S − B − ½ for series-room prices, 0 for any other shape', () => {
  // S = 3 (two series bookings + 1); booking 0 can earn the home-room bonus.
  const shaped = [[slot(0, 'a', 9, 0, -1), slot(0, 'b', 9, 15, 45)], [slot(1, 'a', 10, 30, 90)]];
  assert.equal(shiftLevelGap(shaped), 15 * 3 - 1 - 0.5);
  assert.equal(shiftLevelGap([[slot(0, 'a', 9, 15, 44)], [slot(1, 'a', 10, 7, 7)]]), 0);
  assert.equal(shiftLevelGap([[slot(0, 'a', 9, 15, 40)]]), 0);
});
