// The solver against exhaustive search on 200 seeded random instances: the moved count must be
// the true maximum and the total shift the true minimum for that count; with the default
// candidate cap, whatever the plan claims as proven must hold too.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { solve } from '../src/index.ts';
import { bruteForce } from './brute-force.ts';
import { assertFeasible } from './helpers.ts';
import { randomInstance } from './random-instance.ts';

const SEEDS = Array.from({ length: 200 }, (_, i) => i + 1);

test('every candidate kept: moved and shift equal exhaustive search, and are proven', () => {
  let moves = 0;
  let unresolved = 0;
  for (const seed of SEEDS) {
    const p = randomInstance(seed);
    const plan = solve(p, { maxCandidatesPerBooking: 1_000 });
    assertFeasible(p, plan);
    const truth = bruteForce(p);
    assert.equal(plan.moves.length, truth.moved, `seed ${seed}: moved`);
    assert.equal(plan.totalShiftMinutes, truth.shift, `seed ${seed}: shift`);
    assert.deepEqual(
      { moved: plan.optimal.moved, shift: plan.optimal.shift },
      { moved: true, shift: true },
      `seed ${seed}: proven`,
    );
    assert.equal(plan.movedBound, truth.moved, `seed ${seed}: bound`);
    moves += plan.moves.length;
    unresolved += plan.unresolved.length;
  }
  // The instances must actually exercise competition, not just trivial placements.
  assert.ok(unresolved > 50 && moves > 400, `moves ${moves}, unresolved ${unresolved}`);
});

test('tight cap: claims stay honest and bounds stay valid', () => {
  for (const seed of SEEDS) {
    const p = randomInstance(seed);
    const truth = bruteForce(p);
    for (const cap of [2, 20]) {
      const plan = solve(p, { maxCandidatesPerBooking: cap });
      assertFeasible(p, plan);
      assert.ok(plan.moves.length <= truth.moved, `seed ${seed} cap ${cap}: moved`);
      assert.ok(plan.movedBound >= truth.moved, `seed ${seed} cap ${cap}: bound ${plan.movedBound} < ${truth.moved}`);
      if (plan.optimal.moved) assert.equal(plan.moves.length, truth.moved, `seed ${seed} cap ${cap}: proven moved`);
      if (plan.optimal.shift)
        assert.equal(plan.totalShiftMinutes, truth.shift, `seed ${seed} cap ${cap}: proven shift`);
    }
  }
});

test('tiny models: chunked solving and chunked bounds stay feasible and valid', () => {
  for (const seed of SEEDS.slice(0, 60)) {
    const p = randomInstance(seed);
    const truth = bruteForce(p);
    const plan = solve(p, { maxModelVariables: 12, maxCandidatesPerBooking: 6 });
    assertFeasible(p, plan);
    assert.ok(plan.moves.length <= truth.moved);
    assert.ok(plan.movedBound >= truth.moved, `seed ${seed}: bound ${plan.movedBound} < ${truth.moved}`);
    if (plan.optimal.moved) assert.equal(plan.moves.length, truth.moved, `seed ${seed}: proven moved`);
    if (plan.optimal.shift) assert.equal(plan.totalShiftMinutes, truth.shift, `seed ${seed}: proven shift`);
  }
});
