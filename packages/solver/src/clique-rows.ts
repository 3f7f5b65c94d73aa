// Clique rows for the ILP: in an interval graph the maximal cliques are the sets of candidates
// covering some start instant. One "sum <= 1" row per maximal clique keeps the LP far tighter
// than one row per overlapping pair.
import type { Candidate } from './candidates.ts';
import { byRoom } from './components.ts';

/**
 * Returns each maximal clique as a list of indices into `candidates`, skipping cliques that the
 * per-booking row already covers (all members belong to one booking).
 */
export function cliqueRows(candidates: Candidate[]): number[][] {
  const indexOf = new Map<Candidate, number>(candidates.map((c, i) => [c, i]));
  const rows: number[][] = [];
  for (const group of byRoom(candidates)) {
    const starts = [...new Set(group.map((c) => c.start))];
    let next = 0;
    let active: Candidate[] = [];
    for (let s = 0; s < starts.length; s++) {
      const at = starts[s];
      active = active.filter((a) => a.end > at);
      while (next < group.length && group[next].start === at) active.push(group[next++]);
      // The set covering `at` is maximal unless it is still whole at the next start, i.e.
      // unless no member ends before (or at) the next start.
      const following = starts.at(s + 1);
      const maximal = following === undefined || active.some((a) => a.end <= following);
      if (!maximal || active.length < 2) continue;
      if (active.every((a) => a.booking === active[0].booking)) continue;
      rows.push(active.map((a) => indexOf.get(a)!).sort((x, y) => x - y));
    }
  }
  return rows;
}
