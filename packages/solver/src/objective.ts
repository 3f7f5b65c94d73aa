// The lexicographic objective as one weighted sum. A placement is worth W − |shift| with W larger
// than any total shift the component can accumulate, so one more move always beats any saving in
// shift. A later level (series split) would shrink these weights again, not change their shape.
import type { Candidate } from './candidates.ts';

/** A component's decision: the chosen candidate per component-local booking, or null. */
export type Choice = (Candidate | null)[];

/** W = 1 + the largest total shift possible: the sum of each booking's worst candidate. */
export function moveWeight(candidates: Candidate[][]): number {
  let worst = 0;
  for (const list of candidates) worst += list.reduce((max, c) => Math.max(max, c.cost), 0);
  return worst + 1;
}

export function placementWeight(weight: number, candidate: Candidate): number {
  return weight - candidate.cost;
}

export function objectiveOf(choice: Choice, weight: number): number {
  let total = 0;
  for (const c of choice) if (c) total += placementWeight(weight, c);
  return total;
}

export function movedCount(choice: Choice): number {
  return choice.reduce((n, c) => n + (c ? 1 : 0), 0);
}

export function shiftOf(choice: Choice): number {
  return choice.reduce((n, c) => n + (c ? c.cost : 0), 0);
}

/**
 * Whether a choice is optimal without any search: every booking that has a candidate is moved,
 * each at its cheapest possible shift (lists are cheapest first).
 */
export function triviallyOptimal(choice: Choice, candidates: Candidate[][]): boolean {
  return candidates.every((list, i) => list.length === 0 || choice[i]?.cost === list[0].cost);
}
