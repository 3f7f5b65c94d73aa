// Upper bounds for components we could not solve to proven optimality. Dropping the rows that
// link chunks only relaxes the problem, so the sum of per-chunk LP optima bounds the whole.
import type { Candidate } from './candidates.ts';
import { chunkBookings, subproblem } from './chunks.ts';
import { placementWeight } from './objective.ts';
import { solveRelaxation } from './run-ilp.ts';

export interface ComponentRelaxation {
  /** Upper bound on the weighted objective over all the given candidates. */
  bound: number;
  /** LP value per candidate (by identity); guides the rounding heuristic. */
  values: Map<Candidate, number>;
}

export function relaxComponent(
  candidates: Candidate[][],
  weight: number,
  maxVariables: number,
  deadline: number,
): ComponentRelaxation | null {
  let bound = 0;
  const values = new Map<Candidate, number>();
  for (const chunk of chunkBookings(candidates, maxVariables)) {
    if (chunk.length === 1) {
      // One booking: its best placement is the optimum, no LP needed.
      const best = candidates[chunk[0]].at(0);
      if (best) values.set(best, 1);
      bound += best ? placementWeight(weight, best) : 0;
      continue;
    }
    const relaxation = solveRelaxation(subproblem(candidates, chunk).candidates, weight, deadline);
    if (relaxation === null) return null;
    bound += relaxation.value;
    chunk.flatMap((i) => candidates[i]).forEach((c, v) => values.set(c, relaxation.x[v]));
  }
  return { bound, values };
}

/**
 * Most bookings any solution can move, given an objective bound. A plan moving k bookings is
 * worth at least k·W − (W − 1), so k ≤ (bound + W − 1) / W.
 */
export function movedBoundFrom(objectiveBound: number, weight: number): number {
  return Math.floor((objectiveBound + weight - 1) / weight + 1e-9);
}
