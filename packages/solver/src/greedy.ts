// The incumbent: place the most constrained bookings first at their cheapest free slot, then
// repair locally. It guards the ILP (never accept an answer worse than this) and stands in for it
// when a component is too large or the ILP fails.
import type { Candidate } from './candidates.ts';
import type { Choice } from './objective.ts';
import { Occupancy } from './occupancy.ts';

const MAX_REPAIR_PASSES = 20;

export function greedy(candidates: Candidate[][]): Choice {
  const order = candidates.map((_, i) => i).sort((a, b) => candidates[a].length - candidates[b].length || a - b);
  const choice: Choice = candidates.map(() => null);
  const occupancy = new Occupancy();
  for (const i of order) {
    const free = candidates[i].find((c) => occupancy.isFree(c));
    if (free) {
      choice[i] = free;
      occupancy.add(free);
    }
  }
  return repair(choice, candidates);
}

/**
 * Strict local improvements until none applies: place an unplaced booking in a free slot or by
 * moving one blocking booking elsewhere (one more move), or move a placed booking to a free
 * cheaper slot (less shift). Each step improves the objective, so it terminates.
 */
export function repair(start: Choice, candidates: Candidate[][]): Choice {
  const choice = [...start];
  const occupancy = Occupancy.of(choice);
  const place = (i: number, c: Candidate | null): void => {
    const old = choice[i];
    if (old) occupancy.remove(old);
    choice[i] = c;
    if (c) occupancy.add(c);
  };
  for (let pass = 0; pass < MAX_REPAIR_PASSES; pass++) {
    let changed = false;
    for (let i = 0; i < choice.length; i++) {
      if (choice[i]) continue;
      const free = candidates[i].find((c) => occupancy.isFree(c));
      if (free) {
        place(i, free);
        changed = true;
        continue;
      }
      if (ejectOne(i, candidates, occupancy, place)) changed = true;
    }
    for (let i = 0; i < choice.length; i++) {
      const current = choice[i];
      if (!current) continue;
      const cheaper = candidates[i].find((c) => c.cost < current.cost && occupancy.isFree(c, i));
      if (cheaper) {
        place(i, cheaper);
        changed = true;
      }
    }
    if (!changed) break;
  }
  return choice;
}

/** Place i on a slot held by exactly one booking j, if j has another free slot. */
function ejectOne(
  i: number,
  candidates: Candidate[][],
  occupancy: Occupancy,
  place: (i: number, c: Candidate | null) => void,
): boolean {
  for (const c of candidates[i]) {
    const blocking = occupancy.conflicts(c);
    if (blocking.length !== 1) continue;
    const j = blocking[0];
    place(i, c);
    const alternative = candidates[j].find((alt) => occupancy.isFree(alt, j));
    if (alternative) {
      place(j, alternative);
      return true;
    }
    place(i, null);
  }
  return false;
}
