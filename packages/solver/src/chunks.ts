// Splitting a component that is too big for one dense model (the library keeps a dense matrix:
// 1.2–1.6 GB at 9k variables) into consecutive runs of bookings, each small enough to solve.
import type { Candidate } from './candidates.ts';

/** Consecutive booking indices whose candidates total at most maxVariables (one booking minimum). */
export function chunkBookings(candidates: Candidate[][], maxVariables: number): number[][] {
  const result: number[][] = [];
  let current: number[] = [];
  let size = 0;
  candidates.forEach((list, i) => {
    if (current.length > 0 && size + list.length > maxVariables) {
      result.push(current);
      current = [];
      size = 0;
    }
    current.push(i);
    size += list.length;
  });
  if (current.length > 0) result.push(current);
  return result;
}

export interface Subproblem {
  /** Candidates renumbered so booking k of the subproblem is `bookings[k]` of the parent. */
  candidates: Candidate[][];
  bookings: number[];
}

export function subproblem(
  candidates: Candidate[][],
  bookings: number[],
  keep: (c: Candidate) => boolean = () => true,
): Subproblem {
  return {
    bookings,
    candidates: bookings.map((i, k) => candidates[i].filter((c) => keep(c)).map((c) => ({ ...c, booking: k }))),
  };
}

/** Maps a subproblem's chosen candidates back to the parent's own candidate objects. */
export function liftChoice(
  parent: Candidate[][],
  sub: Subproblem,
  chosen: (Candidate | null)[],
): Map<number, Candidate> {
  const lifted = new Map<number, Candidate>();
  chosen.forEach((c, k) => {
    if (!c) return;
    const i = sub.bookings[k];
    const original = parent[i].find((p) => p.roomId === c.roomId && p.start === c.start);
    if (original) lifted.set(i, original);
  });
  return lifted;
}
