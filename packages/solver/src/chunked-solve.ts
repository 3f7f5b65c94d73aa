// A heuristic for components too large for one model: solve consecutive chunks in time order,
// each ILP seeing only the slots earlier chunks left free. Never proven; the caller certifies.
import type { Candidate } from './candidates.ts';
import { chunkBookings, liftChoice, subproblem } from './chunks.ts';
import type { Choice } from './objective.ts';
import { Occupancy } from './occupancy.ts';
import { solveIlp } from './run-ilp.ts';
import { greedy } from './greedy.ts';

export function solveInChunks(
  candidates: Candidate[][],
  weight: number,
  maxVariables: number,
  deadline: number,
): Choice {
  const choice: Choice = candidates.map(() => null);
  const occupancy = new Occupancy();
  const chunks = chunkBookings(candidates, maxVariables);
  chunks.forEach((chunk, n) => {
    const sub = subproblem(candidates, chunk, (c) => occupancy.isFree(c));
    // Share the time left evenly; a chunk out of time (or failed) falls back to the greedy, and
    // so does a lone booking (its model could exceed the size limit and needs no search).
    const chunkDeadline = Date.now() + (deadline - Date.now()) / (chunks.length - n);
    const solved = chunk.length > 1 ? solveIlp(sub.candidates, weight, chunkDeadline).choice : null;
    const chosen = solved ?? greedy(sub.candidates);
    for (const [i, c] of [...liftChoice(candidates, sub, chosen)].sort((a, b) => a[0] - b[0])) {
      choice[i] = c;
      occupancy.add(c);
    }
  });
  return choice;
}
