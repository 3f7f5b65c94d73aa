// Solves one independent component: cheap certificates first, then the ILP over the cheapest
// candidates, guarded by the greedy incumbent, then an LP bound over all candidates to decide
// what is proven. Only proofs over all candidates count, so the cap never overstates optimality.
import { movedBoundFrom, relaxComponent } from './bounds.ts';
import { keepCheapest, type Candidate } from './candidates.ts';
import { solveInChunks } from './chunked-solve.ts';
import { greedy, repair } from './greedy.ts';
import { roundRelaxation } from './lp-rounding.ts';
import { moveWeight, movedCount, objectiveOf, placementWeight, triviallyOptimal, type Choice } from './objective.ts';
import { isFeasibleChoice } from './occupancy.ts';
import { solveIlp } from './run-ilp.ts';
import { dropDominated } from './dominance.ts';
import { highsReady, highsRelaxationBound, solveWithHighs } from './highs-engine.ts';
import { solvePartsWithHighs } from './highs-parts.ts';

export interface ComponentOptions {
  budgetMs: number;
  maxCandidates: number;
  maxVariables: number;
  /** Capped models larger than this go to HiGHS when it is loaded; 0 keeps every model on javascript-lp-solver. */
  maxJsLpVariables: number;
}

export type EngineUsed = 'javascript-lp-solver' | 'highs' | null;

export interface ComponentResult {
  choice: Choice;
  provenMoved: boolean;
  provenShift: boolean;
  /** Most bookings any plan could move in this component. */
  movedBound: number;
  /** Which ILP engine ran, if any did (small components are settled without one). */
  engine?: EngineUsed;
}

const proven = (choice: Choice, engine: EngineUsed = null): ComponentResult => ({
  choice,
  provenMoved: true,
  provenShift: true,
  movedBound: movedCount(choice),
  engine,
});

/**
 * HiGHS is sparse: it takes every candidate up to this many variables, so its proofs are over
 * all of them. Beyond (a campus day), the capped model finds better plans within the budget.
 */
const HIGHS_MAX_VARIABLES = 5_000;

const size = (lists: Candidate[][]) => lists.reduce((n, list) => n + list.length, 0);

/** `candidates[i]` are booking i's candidates (component-local indices), cheapest first. */
export function solveComponent(candidates: Candidate[][], options: ComponentOptions): ComponentResult {
  const deadline = Date.now() + options.budgetMs;
  const weight = moveWeight(candidates);
  const value = (choice: Choice) => objectiveOf(choice, weight);
  const kept = candidates.map((list) => keepCheapest(list, options.maxCandidates));
  const everyCandidateKept = size(kept) === size(candidates);

  // Each booking at its cheapest slot, without clashes: nothing can beat it.
  const cheapest: Choice = kept.map((list) => list[0] ?? null);
  if (isFeasibleChoice(cheapest)) return proven(cheapest);
  let best = greedy(kept);
  if (triviallyOptimal(best, candidates)) return proven(best);
  if (options.maxJsLpVariables > 0 && size(kept) > options.maxJsLpVariables && highsReady()) {
    return solveOnHighs(candidates, kept, best, weight, deadline, options.budgetMs);
  }

  let provenOnKept = false;
  if (size(kept) <= options.maxVariables) {
    const outcome = solveIlp(kept, weight, deadline);
    // An "optimum" below the greedy incumbent is wrong: keep the incumbent, prove nothing.
    if (outcome.choice && value(outcome.choice) >= value(best)) {
      best = outcome.choice;
      provenOnKept = outcome.finished;
    }
  } else {
    const chunked = solveInChunks(kept, weight, options.maxVariables, deadline);
    if (value(chunked) > value(best)) best = chunked;
  }
  if (provenOnKept && everyCandidateKept) return proven(best, 'javascript-lp-solver');

  best = repair(best, candidates);
  if (triviallyOptimal(best, candidates)) return proven(best);
  // The bound gets its own allowance: without it even a good plan is reported unproven.
  const relaxation = relaxComponent(candidates, weight, options.maxVariables, Date.now() + options.budgetMs);
  if (relaxation && !provenOnKept) {
    const rounded = roundRelaxation(candidates, relaxation.values);
    if (value(rounded) > value(best)) best = rounded;
  }
  const certified = certify(best, candidates, weight, relaxation?.bound ?? null);
  if (certified.provenShift || everyCandidateKept || size(candidates) > options.maxVariables)
    return { ...certified, engine: 'javascript-lp-solver' };
  // The cap hid candidates that might matter and the full model fits: solve it outright.
  const outcome = solveIlp(candidates, weight, deadline);
  if (outcome.finished && outcome.choice && value(outcome.choice) >= value(best))
    return proven(outcome.choice, 'javascript-lp-solver');
  return { ...certified, engine: 'javascript-lp-solver' };
}

/**
 * The HiGHS path: every candidate when the model fits, so its proof is the whole truth (the
 * capped model is often faster, but its LP bound over all candidates rarely proves it); else
 * the capped model and an LP bound over all candidates.
 */
function solveOnHighs(
  candidates: Candidate[][],
  kept: Candidate[][],
  incumbent: Choice,
  weight: number,
  deadline: number,
  budgetMs: number,
): ComponentResult {
  const worth = (c: Candidate) => placementWeight(weight, c);
  const value = (choice: Choice) => objectiveOf(choice, weight);
  // Dominated placements go first (exact); a campus day too big to reduce keeps every candidate here.
  const reduced = size(candidates) <= 2 * HIGHS_MAX_VARIABLES ? dropDominated(candidates) : candidates;
  const whole = size(reduced) <= HIGHS_MAX_VARIABLES;
  let best = incumbent;
  if (whole) {
    // Levels 1–2 proven by the parts; a plan worth at least as much by the weighted objective
    // (the incumbent, with more series bonus) cannot be worse at those levels (objective.ts).
    const outcome = solvePartsWithHighs(reduced, deadline);
    if (outcome.choice && value(outcome.choice) >= value(best)) best = outcome.choice;
    if (outcome.choice && outcome.finished) return proven(best, 'highs');
  } else {
    const outcome = solveWithHighs(kept, worth, deadline);
    // An "optimum" below the greedy incumbent is wrong: keep the incumbent, prove nothing.
    if (outcome.choice && value(outcome.choice) >= value(best)) best = outcome.choice;
  }
  best = repair(best, candidates);
  if (triviallyOptimal(best, candidates)) return proven(best, 'highs');
  const bound = highsRelaxationBound(candidates, worth, Date.now() + budgetMs / 2);
  return { ...certify(best, candidates, weight, bound), engine: 'highs' };
}

/** Decides what an upper bound on the objective over all candidates proves about a choice. */
function certify(choice: Choice, candidates: Candidate[][], weight: number, bound: number | null): ComponentResult {
  const moved = movedCount(choice);
  const movable = candidates.filter((list) => list.length > 0).length;
  const objective = objectiveOf(choice, weight);
  // A "bound" below a plan we hold is a numerical failure: trust only the trivial bound then.
  if (bound === null || bound < objective - 1e-6) {
    return { choice, provenMoved: moved === movable, provenShift: false, movedBound: movable };
  }
  if (Math.floor(bound + 1e-6) <= objective) return proven(choice);
  const movedBound = Math.max(moved, Math.min(movable, movedBoundFrom(bound, weight)));
  return { choice, provenMoved: movedBound === moved, provenShift: false, movedBound };
}
