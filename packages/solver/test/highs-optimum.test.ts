// The solver against an independent exact solver: on 50 generated campuses (4–10 rooms, 1–3
// offline) the moved count and the total shift equal HiGHS's optimum on a model built without
// any of the solver's code. Odd seeds keep every component on javascript-lp-solver; even seeds
// send every component above 20 variables to HiGHS, so both engines are held to the optimum.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkPlan, loadHighsEngine, solve } from '../src/index.ts';
import { solveReference } from '../bench/highs-reference.ts';
import { scenarioProblem } from '../bench/site-problem.ts';
import { smallScenario } from './generated-scenario.ts';

const SEEDS = Array.from({ length: 50 }, (_, i) => i + 1);

test('50 generated campuses: moved and total shift equal the HiGHS optimum, with both engines', async () => {
  await loadHighsEngine();
  let unresolved = 0;
  let affected = 0;
  let highsComponents = 0;
  for (const seed of SEEDS) {
    const problem = scenarioProblem(smallScenario(seed));
    const reference = await solveReference(problem);
    assert.ok(reference.optimal, `seed ${seed}: HiGHS proved its optimum`);
    const plan = solve(problem, { maxJsLpVariables: seed % 2 === 1 ? 0 : 20 });
    assert.deepEqual(checkPlan(problem, plan), [], `seed ${seed}: feasible`);
    assert.equal(plan.moves.length, reference.moved, `seed ${seed}: moved`);
    assert.equal(plan.totalShiftMinutes, reference.totalShiftMinutes, `seed ${seed}: total shift`);
    assert.ok(plan.optimal.moved && plan.optimal.shift, `seed ${seed}: proven`);
    unresolved += plan.unresolved.length;
    affected += plan.affected;
    highsComponents += plan.engines.highs;
  }
  // The instances must make bookings compete, and the second engine must actually have run.
  assert.ok(affected > 500 && unresolved > 30, `affected ${affected}, unresolved ${unresolved}`);
  assert.ok(highsComponents > 10, `HiGHS solved ${highsComponents} components`);
});
