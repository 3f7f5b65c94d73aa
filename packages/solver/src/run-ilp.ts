// Runs a component model and distrusts the answer: a solution counts only if it is integral and
// passes our own feasibility check, and it counts as proven only if the search ran to the end.
import solver from 'javascript-lp-solver';
import type { SolveResult } from 'javascript-lp-solver';
import type { Candidate } from './candidates.ts';
import { buildModel, variableName } from './ilp-model.ts';
import type { Choice } from './objective.ts';
import { isFeasibleChoice } from './occupancy.ts';

const INTEGRAL_EPS = 1e-6;

export interface IlpOutcome {
  /** A verified integral, feasible choice, or null when the answer could not be trusted. */
  choice: Choice | null;
  /** Branch and bound finished inside the budget: the choice is optimal for this model. */
  finished: boolean;
}

export function solveIlp(candidates: Candidate[][], weight: number, budgetMs: number): IlpOutcome {
  const { model, variables } = buildModel(candidates, weight, true, budgetMs);
  const began = Date.now();
  const result = solver.Solve(model) as SolveResult;
  // The library's timeout only ends branching and reports nothing: a run that used the whole
  // budget may have been cut short, so it proves nothing.
  const inTime = Date.now() - began < budgetMs;
  if (!result.feasible) return { choice: null, finished: false };
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
  return { choice, finished: inTime && result.isIntegral === true };
}

/**
 * The LP relaxation's optimum: an upper bound on the model's objective. Null when the library
 * does not report a usable number.
 */
export function lpBound(candidates: Candidate[][], weight: number): number | null {
  const { model } = buildModel(candidates, weight, false);
  const result = solver.Solve(model) as SolveResult;
  if (!result.feasible || result.bounded === false || !Number.isFinite(result.result)) return null;
  return result.result;
}
