// A realistic load: 6 rooms open 08:00–23:00, two offline for 14 days, 150 affected bookings.
// It must be solved to the optimum, and that is checked independently: the moved count and total
// shift equal HiGHS's on a model built without any of the solver's code (bench/highs-reference).
// The solver's own "proven" flags must agree. The time is printed, not asserted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { solve } from '../src/index.ts';
import { solveReference } from '../bench/highs-reference.ts';
import { assertFeasible } from './helpers.ts';
import { mediumInstance } from './medium-instance.ts';

test('medium instance: 150 affected over 14 days, optimal by an independent exact solver', async (t) => {
  for (const seed of [7, 8, 9]) {
    const p = mediumInstance(seed);
    const began = performance.now();
    const plan = solve(p);
    const ms = performance.now() - began;
    t.diagnostic(
      `seed ${seed}: ${ms.toFixed(0)} ms, ${plan.moves.length}/${plan.affected} moved in ${plan.components} components, shift ${plan.totalShiftMinutes} min`,
    );
    assertFeasible(p, plan);
    assert.equal(plan.affected, 150);
    const reference = await solveReference(p);
    assert.ok(reference.optimal, `seed ${seed}: HiGHS proved its optimum`);
    assert.deepEqual(
      { moved: plan.moves.length, shift: plan.totalShiftMinutes },
      { moved: reference.moved, shift: reference.totalShiftMinutes },
      `seed ${seed}: the solver's plan equals the independent optimum`,
    );
    assert.deepEqual({ moved: plan.optimal.moved, shift: plan.optimal.shift }, { moved: true, shift: true });
    assert.equal(plan.movedBound, plan.moves.length);
    assert.ok(plan.unresolved.some((u) => u.code === 'outcompeted'));
  }
});
