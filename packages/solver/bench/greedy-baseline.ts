// The baseline a reader would write first: bookings in start order, each takes the first free
// placement (smallest shift, then room id). What the ILP buys is the gap between this and ours.
import type { Enumerated } from './placements.ts';

export interface BaselineResult {
  moved: number;
  totalShiftMinutes: number;
}

export function greedyBaseline({ placements }: Enumerated): BaselineResult {
  const taken = new Map<string, { start: number; end: number }[]>();
  let moved = 0;
  let shift = 0;
  for (const list of placements) {
    const free = list.find((p) => !(taken.get(p.room) ?? []).some((t) => t.start < p.end && p.start < t.end));
    if (!free) continue;
    taken.set(free.room, [...(taken.get(free.room) ?? []), free]);
    moved++;
    shift += free.cost;
  }
  return { moved, totalShiftMinutes: shift };
}
