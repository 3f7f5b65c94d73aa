// One dense day: 10 rooms, 5 offline and packed, flex up to 2 hours. Its largest component is
// big and degenerate enough to trip javascript-lp-solver's known failure modes.
import type { Problem, SolverBooking } from '../src/index.ts';
import { at, MINUTE, prng } from './helpers.ts';

export function stressInstance(seed: number): Problem {
  const r = prng(seed);
  const rooms = Array.from({ length: 10 }, (_, i) => ({
    id: `s${i}`,
    capacity: r.int(4, 12),
    features: r.next() < 0.5 ? ['piano'] : [],
    open: [{ start: at(1, '08:00'), end: at(1, '23:00') }],
  }));
  const offline = rooms.slice(0, 5).map((x) => x.id);
  const bookings: SolverBooking[] = [];
  for (const room of rooms) {
    const isOffline = offline.includes(room.id);
    let cursor = at(1, '08:00');
    for (let n = 0; n < 12; n++) {
      const duration = r.int(2, 8) * 15 * MINUTE;
      if (cursor + duration > at(1, '23:00')) break;
      if (isOffline || n < 2) {
        bookings.push({
          id: `${room.id}-${n}`,
          roomId: room.id,
          start: cursor,
          end: cursor + duration,
          attendees: r.int(1, 6),
          requiredFeatures: r.next() < 0.2 ? ['piano'] : [],
          seriesId: null,
          flexMinutes: r.pick([0, 30, 60, 90, 120]),
        });
      }
      cursor += duration + (isOffline ? r.int(0, 2) : r.int(4, 16)) * 15 * MINUTE;
    }
  }
  return { rooms, bookings, offlineRooms: offline, window: { start: at(1, '00:00'), end: at(2, '00:00') } };
}
