// Progress once per component with a growing count, and cancellation between components.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { solve, SolveCancelledError, type SolveProgress } from '../src/index.ts';
import { mediumInstance } from './medium-instance.ts';

test('onProgress is called once per component with increasing componentsDone', () => {
  const seen: SolveProgress[] = [];
  const plan = solve(mediumInstance(3), {}, { onProgress: (p) => seen.push(p) });
  assert.equal(seen.length, plan.components);
  assert.ok(plan.components > 1);
  seen.forEach((p, i) => {
    assert.equal(p.componentsDone, i + 1);
    assert.equal(p.componentsTotal, plan.components);
    assert.equal(p.affected, plan.affected);
    assert.ok(p.lastComponentSpan && p.lastComponentSpan.start < p.lastComponentSpan.end);
    if (i > 0) assert.ok(p.bookingsDone > seen[i - 1].bookingsDone && p.movedSoFar >= seen[i - 1].movedSoFar);
  });
  const last = seen[seen.length - 1];
  assert.equal(last.bookingsDone, plan.affected);
  assert.equal(last.movedSoFar, plan.moves.length);
});

test('shouldStop ends the solve with SolveCancelledError between components', () => {
  let progress = 0;
  assert.throws(
    () => solve(mediumInstance(3), {}, { onProgress: () => progress++, shouldStop: () => progress >= 5 }),
    (error: unknown) => error instanceof SolveCancelledError && /after 5 of/.test(error.message),
  );
  assert.equal(progress, 5);
  assert.throws(() => solve(mediumInstance(3), {}, { shouldStop: () => true }), SolveCancelledError);
});
