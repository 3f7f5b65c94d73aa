// Level 3, series split: a series whose moved bookings land in one room is easier on its people
// than one scattered over several. Components are solved separately (a weekly series spans
// several), so each series gets one home room up front, the room most of its affected bookings
// can use, and inside each component a placement in it earns a bonus worth less than one minute
// of shift. Levels 1 and 2 stay exact; level 3 is as good as the home rooms make it, and claimed
// optimal only when no series is split at all.
import type { Candidate } from './candidates.ts';
import { compareStrings } from './intervals.ts';
import type { Instance } from './instance.ts';

/** seriesId → home room, for series with at least two affected bookings. */
export function homeRooms(instance: Instance, candidates: Candidate[][]): Map<string, string> {
  const bySeries = new Map<string, number[]>();
  instance.affected.forEach((b, i) => {
    if (b.seriesId !== null) bySeries.set(b.seriesId, [...(bySeries.get(b.seriesId) ?? []), i]);
  });
  const homes = new Map<string, string>();
  for (const [seriesId, members] of bySeries) {
    if (members.length < 2) continue;
    // Per room: how many members can use it at all, and how many without shifting.
    const score = new Map<string, [number, number]>();
    for (const i of members) {
      const rooms = new Map<string, boolean>();
      for (const c of candidates[i]) rooms.set(c.roomId, (rooms.get(c.roomId) ?? false) || c.cost === 0);
      for (const [room, unshifted] of rooms) {
        const [usable, exact] = score.get(room) ?? [0, 0];
        score.set(room, [usable + 1, exact + (unshifted ? 1 : 0)]);
      }
    }
    const best = [...score].sort((a, b) => b[1][0] - a[1][0] || b[1][1] - a[1][1] || compareStrings(a[0], b[0])).at(0);
    if (best) homes.set(seriesId, best[0]);
  }
  return homes;
}

/**
 * Component-local candidates priced for level 3: penalty = cost × (series bookings + 1), less 1
 * in the home room, and within equal cost the home room first (so greedy paths prefer it too).
 */
export function withSeriesPenalty(
  instance: Instance,
  component: number[],
  candidates: Candidate[][],
  homes: Map<string, string>,
): Candidate[][] {
  const home = component.map((i) => {
    const seriesId = instance.affected[i].seriesId;
    return seriesId === null ? undefined : homes.get(seriesId);
  });
  const scale = home.filter((h) => h !== undefined).length + 1;
  return component.map((i, k) =>
    candidates[i]
      .map((c) => ({ ...c, booking: k, penalty: c.cost * scale - (c.roomId === home[k] ? 1 : 0) }))
      .sort((a, b) => a.cost - b.cost || a.penalty - b.penalty),
  );
}

/** Level 3's measure: for each series, distinct target rooms of its moved bookings − 1, summed. */
export function seriesSplit(moves: { seriesId: string | null; toRoom: string }[]): number {
  const rooms = new Map<string, Set<string>>();
  for (const m of moves) {
    if (m.seriesId === null) continue;
    const set = rooms.get(m.seriesId) ?? new Set<string>();
    set.add(m.toRoom);
    rooms.set(m.seriesId, set);
  }
  let split = 0;
  for (const set of rooms.values()) split += set.size - 1;
  return split;
}
