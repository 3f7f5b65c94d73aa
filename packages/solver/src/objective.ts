// The lexicographic objective as one weighted sum. A placement is worth W − penalty with W larger
// than any total penalty the component can accumulate plus one per booking, so one more move
// always beats any saving in shift. The penalty is the shift, scaled so a series booking landing
// in its series' home room (a bonus of 1) never outweighs a single minute of shift.
import type { Candidate } from './candidates.ts';

/** A component's decision: the chosen candidate per component-local booking, or null. */
export type Choice = (Candidate | null)[];

/** W = 1 + the largest total penalty possible (each booking's worst candidate) + one per booking. */
export function moveWeight(candidates: Candidate[][]): number {
  let worst = 0;
  for (const list of candidates) worst += list.reduce((max, c) => Math.max(max, c.penalty), 0) + 1;
  return worst + 1;
}

export function placementWeight(weight: number, candidate: Candidate): number {
  return weight - candidate.penalty;
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

/**
 * How far above its bound a search minimising total penalty (with the moved count fixed) may stop
 * and still hold level 2 optimal. series-rooms.ts prices a placement as cost × S − bonus, bonus 0
 * or 1, where S exceeds the B bookings that can earn a bonus, and every cost is a multiple of 15:
 * a plan with less total shift costs at least 15·S − B less, whatever the bonuses, so stopping
 * within 15·S − B − ½ proves level 2, and level 3 (claimed only when no series is split) costs no
 * search. Prices of any other shape get 0: the exact optimum.
 */
export function shiftLevelGap(candidates: Candidate[][]): number {
  let scale = 0;
  for (const list of candidates)
    for (const c of list) if (c.cost > 0) scale = Math.max(scale, Math.ceil(c.penalty / c.cost));
  let bonuses = 0;
  for (const list of candidates) {
    let most = 0;
    for (const c of list) {
      const bonus = c.cost * scale - c.penalty;
      if (bonus < 0 || bonus > 1 || c.cost % 15 !== 0) return 0;
      most = Math.max(most, bonus);
    }
    bonuses += most;
  }
  return scale > 0 && 15 * scale > bonuses ? 15 * scale - bonuses - 0.5 : 0;
}
