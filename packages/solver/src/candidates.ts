// Placement candidates: every (room, start) an affected booking may legally move to, ignoring
// the other affected bookings (those conflicts are the optimisation's job).
import { insideOne, MINUTE_MS, overlaps, SLOT_MINUTES } from './intervals.ts';
import { isBlocked, type Instance } from './instance.ts';
import type { SolverBooking, SolverRoom } from './types.ts';

export interface Candidate {
  /** Index of the booking: into Instance.affected, or component-local once inside a component. */
  booking: number;
  roomId: string;
  start: number;
  end: number;
  /** Signed shift in minutes (new start − old start). */
  shift: number;
  /** |shift|: what the second objective level minimises. */
  cost: number;
  /**
   * What the weighted objective charges for this placement: the cost, or within a component with
   * series, cost × (series bookings + 1) less 1 in the series' home room (see series-rooms.ts).
   */
  penalty: number;
}

export function roomSuits(room: SolverRoom, booking: SolverBooking): boolean {
  return (
    room.capacity >= booking.attendees && booking.requiredFeatures.every((feature) => room.features.includes(feature))
  );
}

/** All candidates of one booking, cheapest shift first, ties by room id then start. */
export function candidatesFor(instance: Instance, index: number): Candidate[] {
  const booking = instance.affected[index];
  const duration = booking.end - booking.start;
  const steps = Math.floor(Math.max(0, booking.flexMinutes) / SLOT_MINUTES);
  const result: Candidate[] = [];
  for (const room of instance.rooms) {
    if (!roomSuits(room, booking)) continue;
    const offline = instance.offline.has(room.id);
    const blockers = instance.blockers.get(room.id);
    for (let k = -steps; k <= steps; k++) {
      const shift = k * SLOT_MINUTES;
      const start = booking.start + shift * MINUTE_MS;
      const end = start + duration;
      if (offline && overlaps({ start, end }, instance.window)) continue;
      if (!insideOne(room.open, start, end)) continue;
      if (isBlocked(blockers, start, end)) continue;
      result.push({
        booking: index,
        roomId: room.id,
        start,
        end,
        shift,
        cost: Math.abs(shift),
        penalty: Math.abs(shift),
      });
    }
  }
  // Rooms are already in id order and starts ascend within a room, so a stable sort on cost
  // gives the documented tie-break.
  return result.sort((a, b) => a.cost - b.cost);
}

/** The cheapest `cap` candidates (the list is already cheapest first). */
export function keepCheapest(candidates: Candidate[], cap: number): Candidate[] {
  return candidates.length > cap ? candidates.slice(0, cap) : candidates;
}
