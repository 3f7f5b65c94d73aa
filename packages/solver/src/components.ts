// Independent components: affected bookings that can never compete for a room-time are solved
// separately. Two bookings are linked when any of their candidates overlap in the same room.
import type { Candidate } from './candidates.ts';
import { compareStrings } from './intervals.ts';

class UnionFind {
  private readonly parent: number[];

  constructor(size: number) {
    this.parent = Array.from({ length: size }, (_, i) => i);
  }

  find(x: number): number {
    while (this.parent[x] !== x) {
      this.parent[x] = this.parent[this.parent[x]];
      x = this.parent[x];
    }
    return x;
  }

  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    // Smaller root wins, so the structure never depends on call order beyond the input's.
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

/** Candidates grouped by room, each group sorted by start (room ids sorted). */
export function byRoom(candidates: Candidate[]): Candidate[][] {
  const sorted = [...candidates].sort(
    (a, b) => compareStrings(a.roomId, b.roomId) || a.start - b.start || a.end - b.end || a.booking - b.booking,
  );
  const groups: Candidate[][] = [];
  for (const c of sorted) {
    const last = groups.at(-1);
    if (last && last[0].roomId === c.roomId) last.push(c);
    else groups.push([c]);
  }
  return groups;
}

/**
 * Components as lists of booking indices (ascending, i.e. by start then id, since the affected
 * list is sorted that way), ordered by the caller's rule later. `candidates[i]` belongs to booking i.
 */
export function findComponents(candidates: Candidate[][]): number[][] {
  const uf = new UnionFind(candidates.length);
  for (const group of byRoom(candidates.flat())) {
    // Sweep by start; `active` holds candidates whose end lies beyond the current start.
    let active: Candidate[] = [];
    for (const c of group) {
      active = active.filter((a) => a.end > c.start);
      for (const a of active) uf.union(a.booking, c.booking);
      active.push(c);
    }
  }
  const byRoot = new Map<number, number[]>();
  for (let i = 0; i < candidates.length; i++) {
    // eslint-disable-next-line unicorn/no-array-callback-reference -- the union-find's find takes an element, not a callback
    const root = uf.find(i);
    const list = byRoot.get(root) ?? [];
    list.push(i);
    byRoot.set(root, list);
  }
  return [...byRoot.values()];
}
