// Upper bounds for components we could not solve to proven optimality. Dropping the rows that
// link chunks only relaxes the problem, so the sum of per-chunk LP optima bounds the whole.
import type { Candidate } from './candidates.ts';
import { chunkBookings, subproblem } from './chunks.ts';
import { placementWeight } from './objective.ts';
import { lpBound } from './run-ilp.ts';

/** An upper bound on the weighted objective over these candidates, or null if none is trusted. */
export function objectiveBound(candidates: Candidate[][], weight: number, maxVariables: number): number | null {
  let total = 0;
  for (const chunk of chunkBookings(candidates, maxVariables)) {
    if (chunk.length === 1) {
      // One booking: its best placement is the optimum, no LP needed.
      const best = candidates[chunk[0]][0];
      total += best ? placementWeight(weight, best) : 0;
      continue;
    }
    const bound = lpBound(subproblem(candidates, chunk).candidates, weight);
    if (bound === null) return null;
    total += bound;
  }
  return total;
}

/**
 * Most bookings any solution can move, given an objective bound. A plan moving k bookings is
 * worth at least k·W − (W − 1), so k ≤ (bound + W − 1) / W.
 */
export function movedBoundFrom(objectiveBoundValue: number, weight: number): number {
  return Math.floor((objectiveBoundValue + weight - 1) / weight + 1e-9);
}
