// Normalises a Problem into sorted, indexed form so every later step iterates in an order that
// depends only on the data, never on the caller's array order (determinism).
import { compareStrings, overlaps } from './intervals.ts';
import type { Interval, Problem, SolverBooking, SolverRoom } from './types.ts';

/** Bookings that block a room, sorted by start, with a running max of ends for O(log n) lookups. */
export interface Blockers {
  starts: number[];
  prefixMaxEnd: number[];
}

export interface Instance {
  /** Sorted by id; each room's open intervals sorted by start. */
  rooms: SolverRoom[];
  offline: ReadonlySet<string>;
  window: Interval;
  /** Affected bookings sorted by start, then id. Their position is their index everywhere. */
  affected: SolverBooking[];
  blockers: ReadonlyMap<string, Blockers>;
}

export function byStartThenId(a: SolverBooking, b: SolverBooking): number {
  return a.start - b.start || compareStrings(a.id, b.id);
}

export function isAffected(problem: Problem, booking: SolverBooking): boolean {
  return problem.offlineRooms.includes(booking.roomId) && overlaps(booking, problem.window);
}

export function buildInstance(problem: Problem): Instance {
  const rooms = problem.rooms
    .map((room) => ({ ...room, open: [...room.open].sort((a, b) => a.start - b.start || a.end - b.end) }))
    .sort((a, b) => compareStrings(a.id, b.id));
  const affected: SolverBooking[] = [];
  const blocking = new Map<string, SolverBooking[]>();
  for (const booking of problem.bookings) {
    if (isAffected(problem, booking)) {
      affected.push(booking);
    } else {
      const list = blocking.get(booking.roomId) ?? [];
      list.push(booking);
      blocking.set(booking.roomId, list);
    }
  }
  affected.sort(byStartThenId);
  const blockers = new Map<string, Blockers>();
  for (const [roomId, list] of blocking) {
    list.sort(byStartThenId);
    let maxEnd = -Infinity;
    const prefixMaxEnd = list.map((b) => (maxEnd = Math.max(maxEnd, b.end)));
    blockers.set(roomId, { starts: list.map((b) => b.start), prefixMaxEnd });
  }
  return { rooms, offline: new Set(problem.offlineRooms), window: problem.window, affected, blockers };
}

/** Whether [start, end) overlaps any blocking booking of the room. */
export function isBlocked(blockers: Blockers | undefined, start: number, end: number): boolean {
  if (!blockers) return false;
  // Count blockers starting before `end`; one of them overlaps iff its end passes `start`.
  let lo = 0;
  let hi = blockers.starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (blockers.starts[mid] < end) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && blockers.prefixMaxEnd[lo - 1] > start;
}
