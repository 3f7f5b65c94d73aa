// An exact reduction before the ILP: a placement q of a booking is dropped when another placement
// p of the same booking is no dearer (penalty) and clashes with no other booking's placement that
// q does not clash with. Any plan using q can use p instead at no loss, so the optimum of the
// weighted objective (all three levels as priced) is unchanged, and a proof on the reduced model
// is a proof over every candidate. Interchangeable rooms make many such twins: the hard
// components of the large benchmark lose 30–45 % of their variables.
import type { Candidate } from './candidates.ts';
import { byRoom } from './components.ts';

const MAX_ROUNDS = 10;

/** Clash sets as bitsets over positions in `flat`: other bookings' candidates overlapping in the room. */
function clashBits(flat: Candidate[], words: number): Uint32Array[] {
  const position = new Map<Candidate, number>(flat.map((c, i) => [c, i]));
  const bits = flat.map(() => new Uint32Array(words));
  for (const group of byRoom(flat)) {
    for (let a = 0; a < group.length; a++) {
      // Groups are sorted by start: later members overlap only while they start before a's end.
      for (let b = a + 1; b < group.length && group[b].start < group[a].end; b++) {
        if (group[a].booking === group[b].booking) continue;
        const pa = position.get(group[a])!;
        const pb = position.get(group[b])!;
        bits[pa][pb >>> 5] |= 1 << (pb & 31);
        bits[pb][pa >>> 5] |= 1 << (pa & 31);
      }
    }
  }
  return bits;
}

/** Whether the live part of `small` lies inside `large`. */
function within(small: Uint32Array, large: Uint32Array, alive: Uint32Array): boolean {
  for (let w = 0; w < small.length; w++) if ((small[w] & alive[w] & ~large[w]) !== 0) return false;
  return true;
}

/**
 * The candidates with dominated placements removed, repeatedly until none is (each round may
 * free more: a dropped placement leaves every clash set it was in). Lists keep their order;
 * booking indices are unchanged. Between equal twins the earlier one stays, so the result
 * depends only on the input.
 */
export function dropDominated(candidates: Candidate[][]): Candidate[][] {
  const flat = candidates.flat();
  const words = Math.ceil(flat.length / 32);
  const clash = clashBits(flat, words);
  const alive = new Uint32Array(words);
  flat.forEach((_, i) => (alive[i >>> 5] |= 1 << (i & 31)));
  const isAlive = (i: number) => (alive[i >>> 5] & (1 << (i & 31))) !== 0;
  const offsets: number[] = [];
  candidates.reduce((offset, list) => (offsets.push(offset), offset + list.length), 0);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const dropped: number[] = [];
    candidates.forEach((list, i) => {
      const base = offsets[i];
      for (let q = 0; q < list.length; q++) {
        if (!isAlive(base + q)) continue;
        // Dominance is a strict order (penalty, then clash set, then position), so every dropped
        // placement has a kept one dominating it and dropping all of a round at once is safe.
        const dominated = list.some((p, k) => {
          if (k === q || !isAlive(base + k) || p.penalty > list[q].penalty) return false;
          const cp = clash[base + k];
          const cq = clash[base + q];
          if (!within(cp, cq, alive)) return false;
          return p.penalty < list[q].penalty || k < q || !within(cq, cp, alive);
        });
        if (dominated) dropped.push(base + q);
      }
    });
    if (dropped.length === 0) break;
    for (const d of dropped) alive[d >>> 5] &= ~(1 << (d & 31));
  }
  return candidates.map((list, i) => list.filter((_, k) => isAlive(offsets[i] + k)));
}
