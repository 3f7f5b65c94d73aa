// The ILP itself (not hidden behind the greedy guard) against exhaustive search over the same
// candidate lists, for every multi-booking component of the random instances.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { candidatesFor, type Candidate } from '../src/candidates.ts';
import { findComponents } from '../src/components.ts';
import { buildInstance } from '../src/instance.ts';
import { moveWeight, objectiveOf, placementWeight } from '../src/objective.ts';
import { solveIlp, solveRelaxation } from '../src/run-ilp.ts';
import { randomInstance } from './random-instance.ts';

function bestObjective(candidates: Candidate[][], weight: number): number {
  const best = candidates.map((list) => (list.length > 0 ? placementWeight(weight, list[0]) : 0));
  const chosen: Candidate[] = [];
  let top = 0;
  const visit = (i: number, value: number): void => {
    if (i === candidates.length) {
      top = Math.max(top, value);
      return;
    }
    if (value + best.slice(i).reduce((a, b) => a + b, 0) <= top) return;
    for (const c of candidates[i]) {
      if (chosen.some((o) => o.roomId === c.roomId && o.start < c.end && c.start < o.end)) continue;
      chosen.push(c);
      visit(i + 1, value + placementWeight(weight, c));
      chosen.pop();
    }
    visit(i + 1, value);
  };
  visit(0, 0);
  return top;
}

test('ILP optimum equals exhaustive search on every multi-booking component', () => {
  let checked = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const instance = buildInstance(randomInstance(seed));
    const all = instance.affected.map((_, i) => candidatesFor(instance, i));
    for (const component of findComponents(all)) {
      if (component.length < 2) continue;
      const local = component.map((i, k) => all[i].map((c) => ({ ...c, booking: k })));
      const weight = moveWeight(local);
      const outcome = solveIlp(local, weight, Date.now() + 5_000);
      assert.ok(outcome.choice && outcome.finished, `seed ${seed}: ILP gave no proven answer`);
      const truth = bestObjective(local, weight);
      assert.equal(objectiveOf(outcome.choice, weight), truth, `seed ${seed}: ILP objective`);
      const bound = solveRelaxation(local, weight, Date.now() + 5_000)?.value ?? null;
      assert.ok(bound !== null && bound >= truth - 1e-6, `seed ${seed}: LP bound ${bound} < ${truth}`);
      checked++;
    }
  }
  assert.ok(checked >= 100, `only ${checked} components checked`);
});
