// Why an affected booking stays unresolved, in a sentence a person can act on: what room it
// needs, which suitable rooms are busy, or how many moved bookings took its slots.
import { roomSuits, type Candidate } from './candidates.ts';
import { compareStrings, isoMinute } from './intervals.ts';
import type { Instance } from './instance.ts';
import type { Occupancy } from './occupancy.ts';
import type { SolverBooking, SolverRoom, Unresolved } from './types.ts';

const list = (ids: string[]) => ids.join(', ');
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function unresolvedReason(
  instance: Instance,
  booking: SolverBooking,
  candidates: Candidate[],
  taken: Occupancy,
): Unresolved {
  if (candidates.length > 0) return outcompeted(booking, candidates, taken);
  const online = instance.rooms.filter((room) => !instance.offline.has(room.id));
  const suitable = online.filter((room) => roomSuits(room, booking)).map((room) => room.id);
  if (suitable.length === 0) return noSuitableRoom(instance, booking, online);
  const when = `${isoMinute(booking.start)}–${isoMinute(booking.end)}`;
  const flex = booking.flexMinutes >= 15 ? `±${booking.flexMinutes} min` : '(no flex)';
  const rooms = suitable.length === 1 ? `Suitable room ${suitable[0]} is` : `Suitable rooms ${list(suitable)} are`;
  return {
    bookingId: booking.id,
    code: 'rooms_busy',
    reason: `${rooms} booked or closed throughout ${when} ${flex}`,
  };
}

function outcompeted(booking: SolverBooking, candidates: Candidate[], taken: Occupancy): Unresolved {
  const rooms = [...new Set(candidates.map((c) => c.roomId))].sort(compareStrings);
  const rivals = new Set<number>();
  for (const c of candidates) for (const other of taken.conflicts(c)) rivals.add(other);
  const slots = candidates.length === 1 ? 'The only free slot' : `All ${candidates.length} free slots`;
  return {
    bookingId: booking.id,
    code: 'outcompeted',
    reason: `${slots} in ${list(rooms)} went to ${plural(rivals.size, 'other moved booking', 'other moved bookings')}`,
  };
}

function noSuitableRoom(instance: Instance, booking: SolverBooking, online: SolverRoom[]): Unresolved {
  const features = [...booking.requiredFeatures].sort(compareStrings);
  const withFeatures = online
    .filter((room) => features.every((f) => room.features.includes(f)))
    .sort((a, b) => b.capacity - a.capacity || compareStrings(a.id, b.id));
  let reason: string;
  if (withFeatures.length === 0) {
    reason = features.length === 1 ? `No room has ${features[0]}` : `No room has all of ${list(features)}`;
  } else {
    const need = features.length > 0 ? ` with ${list(features)}` : '';
    const largest = features.length > 0 ? `largest with ${list(features)}` : 'largest';
    reason = `No room holds ${booking.attendees} people${need} (${largest}: ${withFeatures[0].id}, ${withFeatures[0].capacity})`;
  }
  // A suitable room that is offline is worth naming: the fix may be a shorter outage.
  const offline = instance.rooms.filter((room) => instance.offline.has(room.id) && roomSuits(room, booking));
  if (offline.length > 0) {
    const window = `${isoMinute(instance.window.start)}–${isoMinute(instance.window.end)}`;
    reason += `; ${list(offline.map((room) => room.id))} would fit but ${offline.length === 1 ? 'is' : 'are'} offline ${window}`;
  }
  return { bookingId: booking.id, code: 'no_suitable_room', reason };
}
