// A second incumbent from the LP relaxation: take candidates in order of LP value (the LP's
// view of what an optimum uses), keep those that still fit, then repair locally. On dense
// components where branch and bound runs out of time it beats the plain greedy.
import type { Candidate } from './candidates.ts';
import { compareStrings } from './intervals.ts';
import { repair } from './greedy.ts';
import type { Choice } from './objective.ts';
import { Occupancy } from './occupancy.ts';

export function roundRelaxation(candidates: Candidate[][], values: Map<Candidate, number>): Choice {
  const ranked = candidates
    .flat()
    .filter((c) => (values.get(c) ?? 0) > 1e-6)
    .sort(
      (a, b) =>
        values.get(b)! - values.get(a)! ||
        a.cost - b.cost ||
        a.booking - b.booking ||
        compareStrings(a.roomId, b.roomId) ||
        a.start - b.start,
    );
  const choice: Choice = candidates.map(() => null);
  const occupancy = new Occupancy();
  for (const c of ranked) {
    if (choice[c.booking] || !occupancy.isFree(c)) continue;
    choice[c.booking] = c;
    occupancy.add(c);
  }
  return repair(choice, candidates);
}
