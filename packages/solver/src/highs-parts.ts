// HiGHS on a component after the exact dominance reduction: dropping dominated placements often
// cuts the component into independent parts, and each part is solved on its own (a part whose
// bookings all fit at their cheapest slots needs no search). Each part runs to a proof of levels
// 1 and 2 only (highs-lexicographic.ts); the whole holds them when every part does.
import type { Candidate } from './candidates.ts';
import { liftChoice, subproblem } from './chunks.ts';
import { findComponents } from './components.ts';
import { greedy } from './greedy.ts';
import { solveLevelsWithHighs } from './highs-lexicographic.ts';
import type { Choice } from './objective.ts';
import { isFeasibleChoice } from './occupancy.ts';
import type { IlpOutcome } from './run-ilp.ts';

const size = (lists: Candidate[][]) => lists.reduce((n, list) => n + list.length, 0);

/**
 * `candidates` are already reduced (see dominance.ts); the choice uses their own objects.
 * `finished` means levels 1 and 2 are proven optimal, not the series bonus.
 */
export function solvePartsWithHighs(candidates: Candidate[][], deadline: number): IlpOutcome {
  // Components come back in order of their first booking, so the order depends only on the data.
  const parts = findComponents(candidates);
  const choice: Choice = candidates.map(() => null);
  let finished = true;
  let sizeLeft = size(candidates);
  for (const part of parts) {
    const sub = subproblem(candidates, part);
    const partSize = size(sub.candidates);
    // Up to twice its share by size of the time left, as solve.ts does for components.
    const partDeadline = Date.now() + (deadline - Date.now()) * Math.min(1, (2 * partSize) / Math.max(1, sizeLeft));
    sizeLeft -= partSize;
    let chosen: Choice = sub.candidates.map((list) => list[0] ?? null);
    if (!isFeasibleChoice(chosen)) {
      const outcome = solveLevelsWithHighs(sub.candidates, partDeadline);
      finished &&= outcome.finished;
      chosen = outcome.choice ?? greedy(sub.candidates);
    }
    for (const [i, c] of liftChoice(candidates, sub, chosen)) choice[i] = c;
  }
  return isFeasibleChoice(choice) ? { choice, finished } : { choice: null, finished: false };
}
