// Regression tests for the javascript-lp-solver failure modes the wrapper guards against, on the
// largest component of a dense instance: a premature "optimal" LP, and a phase 1 that never ends.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import solver from 'javascript-lp-solver';
import type { SolveResult } from 'javascript-lp-solver';
import { candidatesFor, keepCheapest, type Candidate } from '../src/candidates.ts';
import { findComponents } from '../src/components.ts';
import { greedy } from '../src/greedy.ts';
import { buildModel } from '../src/ilp-model.ts';
import { buildInstance } from '../src/instance.ts';
import { moveWeight, objectiveOf } from '../src/objective.ts';
import { isFeasibleChoice } from '../src/occupancy.ts';
import { solveIlp, solveRelaxation } from '../src/run-ilp.ts';
import { stressInstance } from './stress-instance.ts';

function largestComponent(seed: number): Candidate[][] {
  const instance = buildInstance(stressInstance(seed));
  const all = instance.affected.map((_, i) => candidatesFor(instance, i));
  const biggest = findComponents(all).sort((a, b) => b.length - a.length)[0];
  return biggest.map((i, k) => all[i].map((c) => ({ ...c, booking: k })));
}

test('the LP relaxation is a true upper bound where the bare library stops short', (t) => {
  const candidates = largestComponent(1);
  const weight = moveWeight(candidates);
  const incumbent = greedy(candidates);
  assert.ok(isFeasibleChoice(incumbent));
  // No deadline: the relaxation is deterministic, so whether it finishes does not depend on the
  // clock, only how long it takes (on a busy machine, much longer). The runner's timeout ends a hang.
  const relaxation = solveRelaxation(candidates, weight, Number.POSITIVE_INFINITY);
  assert.ok(relaxation, 'relaxation solved');
  assert.ok(
    relaxation.value >= objectiveOf(incumbent, weight),
    `${relaxation.value} < ${objectiveOf(incumbent, weight)}`,
  );
  const bare = solver.Solve(buildModel(candidates, weight, false).model) as SolveResult;
  t.diagnostic(
    `bare library LP ${bare.result}, wrapped ${relaxation.value}, feasible plan ${objectiveOf(incumbent, weight)}`,
  );
});

test('a hard deadline ends an ILP whose phase 1 would pivot forever', () => {
  const candidates = largestComponent(2).map((list) => keepCheapest(list, 20));
  const began = Date.now();
  const cpu = process.cpuUsage();
  const outcome = solveIlp(candidates, moveWeight(candidates), began + 2_000);
  // The deadline is wall time, but what the overshoot past it costs is CPU time (pivots until the
  // next clock check): bounded in CPU time, so a busy machine that lends this process little CPU
  // cannot fail it. Without the deadline the phase 1 would pivot on for good.
  const { user, system } = process.cpuUsage(cpu);
  const cpuMs = (user + system) / 1000;
  assert.ok(cpuMs < 5_000, `used ${Math.round(cpuMs)} ms of CPU (${Date.now() - began} ms of wall time)`);
  assert.equal(outcome.finished, false);
});
