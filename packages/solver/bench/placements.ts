// Every legal placement of every affected booking, enumerated straight from docs/solver.md ("The problem") for the
// benchmark's reference solvers, deliberately sharing no code with the solver under test.
import type { Problem, SolverBooking } from '../src/index.ts';

const MINUTE = 60_000;

export interface Placement {
  /** Index into `affected`. */
  booking: number;
  room: string;
  start: number;
  end: number;
  /** |shift| in minutes. */
  cost: number;
}

export interface Enumerated {
  /** Sorted by start, then id. */
  affected: SolverBooking[];
  /** Per booking, smallest shift first, then room id, then start. */
  placements: Placement[][];
}

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) =>
  a.start < b.end && b.start < a.end;

/** Busy spans of one room, sorted by start, with a running max of ends for a binary search. */
function busyIndex(spans: { start: number; end: number }[]) {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const starts = sorted.map((s) => s.start);
  let max = -Infinity;
  const maxEnd = sorted.map((s) => (max = Math.max(max, s.end)));
  return (start: number, end: number): boolean => {
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid] < end) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 && maxEnd[lo - 1] > start;
  };
}

export function enumerate(problem: Problem): Enumerated {
  const isAffected = (b: SolverBooking) => problem.offlineRooms.includes(b.roomId) && overlaps(b, problem.window);
  const affected = problem.bookings
    .filter((b) => isAffected(b))
    .sort((a, b) => a.start - b.start || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const rooms = [...problem.rooms].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const busy = new Map(
    rooms.map((r) => [r.id, busyIndex(problem.bookings.filter((b) => b.roomId === r.id && !isAffected(b)))]),
  );
  const placements = affected.map((b, booking) => {
    const out: Placement[] = [];
    const duration = b.end - b.start;
    const steps = Math.floor(b.flexMinutes / 15);
    for (const room of rooms) {
      if (room.capacity < b.attendees || !b.requiredFeatures.every((f) => room.features.includes(f))) continue;
      for (let k = -steps; k <= steps; k++) {
        const start = b.start + k * 15 * MINUTE;
        const p = { booking, room: room.id, start, end: start + duration, cost: Math.abs(k * 15) };
        if (!room.open.some((o) => o.start <= p.start && p.end <= o.end)) continue;
        if (problem.offlineRooms.includes(room.id) && overlaps(p, problem.window)) continue;
        if (busy.get(room.id)!(p.start, p.end)) continue;
        out.push(p);
      }
    }
    return out.sort((x, y) => x.cost - y.cost);
  });
  return { affected, placements };
}
