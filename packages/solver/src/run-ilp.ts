// Runs a component model and distrusts the answer: a solution counts only if it is integral and
// passes our own feasibility check, and it counts as proven only if the search ran to the end
// with every simplex run trustworthy.
import type { Candidate } from './candidates.ts';
import { buildModel, variableName } from './ilp-model.ts';
import { runModel } from './lp-library.ts';
import type { Choice } from './objective.ts';
import { isFeasibleChoice } from './occupancy.ts';

const INTEGRAL_EPS = 1e-6;

export interface IlpOutcome {
  /** A verified integral, feasible choice, or null when the answer could not be trusted. */
  choice: Choice | null;
  /** Branch and bound finished in time: the choice is optimal for this model. */
  finished: boolean;
}

export function solveIlp(candidates: Candidate[][], weight: number, deadline: number): IlpOutcome {
  const budget = deadline - Date.now();
  if (budget < 1) return { choice: null, finished: false };
  const { model, variables } = buildModel(candidates, weight, true, budget);
  const { result, reliable } = runModel(model, deadline);
  // The library's timeout only ends branching and reports nothing: a run that reached the
  // deadline may have been cut short, so it proves nothing.
  const inTime = Date.now() < deadline;
  if (!result?.feasible) return { choice: null, finished: false };
  const choice: Choice = candidates.map(() => null);
  for (let v = 0; v < variables.length; v++) {
    const raw = result[variableName(v)];
    const value = typeof raw === 'number' ? raw : 0;
    if (Math.abs(value) <= INTEGRAL_EPS) continue;
    if (Math.abs(value - 1) > INTEGRAL_EPS) return { choice: null, finished: false };
    const c = variables[v];
    if (choice[c.booking]) return { choice: null, finished: false };
    choice[c.booking] = c;
  }
  if (!isFeasibleChoice(choice)) return { choice: null, finished: false };
  return { choice, finished: reliable && inTime && result.isIntegral === true };
}

export interface Relaxation {
  /** The LP optimum: an upper bound on the model's objective. */
  value: number;
  /** The LP value of each candidate, aligned with `candidates.flat()`. */
  x: number[];
}

/** The LP relaxation, or null when the library does not give an answer we can trust in time. */
export function solveRelaxation(candidates: Candidate[][], weight: number, deadline: number): Relaxation | null {
  const { model, variables } = buildModel(candidates, weight, false);
  const { result, reliable } = runModel(model, deadline);
  if (!result || !reliable || !result.feasible || result.bounded === false || !Number.isFinite(result.result))
    return null;
  const x = variables.map((_, v) => {
    const raw = result[variableName(v)];
    return typeof raw === 'number' ? raw : 0;
  });
  return { value: result.result, x };
}
