// Solves one independent component: cheap certificates first, then the ILP over the cheapest
// candidates, guarded by the greedy incumbent, then a bound over all candidates to decide what
// is proven. Only all-candidate proofs count, so capping candidates never overstates optimality.
import { movedBoundFrom, objectiveBound } from './bounds.ts';
import { keepCheapest, type Candidate } from './candidates.ts';
import { solveInChunks } from './chunked-solve.ts';
import { greedy, repair } from './greedy.ts';
import { moveWeight, movedCount, objectiveOf, triviallyOptimal, type Choice } from './objective.ts';
import { isFeasibleChoice } from './occupancy.ts';
import { solveIlp } from './run-ilp.ts';

export interface ComponentOptions {
  budgetMs: number;
  maxCandidates: number;
  maxVariables: number;
}

export interface ComponentResult {
  choice: Choice;
  provenMoved: boolean;
  provenShift: boolean;
  /** Most bookings any plan could move in this component. */
  movedBound: number;
}

const proven = (choice: Choice): ComponentResult => ({
  choice,
  provenMoved: true,
  provenShift: true,
  movedBound: movedCount(choice),
});

/** `candidates[i]` are booking i's candidates (component-local indices), cheapest first. */
export function solveComponent(candidates: Candidate[][], options: ComponentOptions): ComponentResult {
  const deadline = Date.now() + options.budgetMs;
  const weight = moveWeight(candidates);
  const kept = candidates.map((list) => keepCheapest(list, options.maxCandidates));
  const everyCandidateKept = kept.every((list, i) => list.length === candidates[i].length);
  const size = (lists: Candidate[][]) => lists.reduce((n, list) => n + list.length, 0);

  // Each booking at its cheapest slot, without clashes: nothing can beat it.
  const cheapest: Choice = kept.map((list) => list[0] ?? null);
  if (isFeasibleChoice(cheapest)) return proven(cheapest);
  let best = greedy(kept);
  if (triviallyOptimal(best, candidates)) return proven(best);

  let provenOnKept = false;
  const better = (choice: Choice | null) => choice !== null && objectiveOf(choice, weight) >= objectiveOf(best, weight);
  if (size(kept) <= options.maxVariables) {
    const outcome = solveIlp(kept, weight, options.budgetMs);
    // An "optimum" below the greedy incumbent is wrong: keep the incumbent, prove nothing.
    if (better(outcome.choice)) {
      best = outcome.choice!;
      provenOnKept = outcome.finished;
    }
  } else {
    const chunked = solveInChunks(kept, weight, options.maxVariables, deadline);
    if (better(chunked)) best = chunked;
  }
  if (provenOnKept && everyCandidateKept) return proven(best);

  best = repair(best, candidates);
  const certified = certify(best, candidates, weight, options.maxVariables);
  if (certified.provenShift || everyCandidateKept || size(candidates) > options.maxVariables) return certified;
  // The cap hid candidates that might matter and the full model fits: solve it outright.
  const remaining = deadline - Date.now();
  if (remaining < 1) return certified;
  const outcome = solveIlp(candidates, weight, remaining);
  if (outcome.finished && better(outcome.choice)) return proven(outcome.choice!);
  return certified;
}

/** Decides what the bound over all candidates proves about a feasible choice. */
function certify(choice: Choice, candidates: Candidate[][], weight: number, maxVariables: number): ComponentResult {
  if (triviallyOptimal(choice, candidates)) return proven(choice);
  const moved = movedCount(choice);
  const movable = candidates.filter((list) => list.length > 0).length;
  const value = objectiveBound(candidates, weight, maxVariables);
  const objective = objectiveOf(choice, weight);
  // A "bound" below a plan we hold is a numerical failure: trust only the trivial bound then.
  if (value === null || value < objective - 1e-6) {
    return { choice, provenMoved: moved === movable, provenShift: false, movedBound: movable };
  }
  if (Math.floor(value + 1e-6) <= objective) return proven(choice);
  const movedBound = Math.max(moved, Math.min(movable, movedBoundFrom(value, weight)));
  return { choice, provenMoved: movedBound === moved, provenShift: false, movedBound };
}
