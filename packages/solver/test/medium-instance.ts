// A month-like instance: 6 rooms open 08:00–23:00, two of them offline for 14 days with 150
// affected bookings between them, the other rooms about half booked.
import type { Problem, SolverBooking, SolverRoom } from '../src/index.ts';
import { at, MINUTE, prng } from './helpers.ts';

const DAYS = 14;
const ROOMS: Array<[string, number, string[]]> = [
  ['studio-a', 12, ['piano']],
  ['studio-b', 10, ['vocal-booth']],
  ['studio-c', 8, ['vocal-booth', 'piano']],
  ['studio-d', 6, []],
  ['studio-e', 14, ['piano', 'vocal-booth']],
  ['studio-f', 4, ['vocal-booth']],
];

export function mediumInstance(seed = 7, affectedWanted = 150): Problem {
  const r = prng(seed);
  const days = Array.from({ length: DAYS + 2 }, (_, d) => d);
  const rooms: SolverRoom[] = ROOMS.map(([id, capacity, features]) => ({
    id,
    capacity,
    features,
    open: days.map((d) => ({ start: at(d, '08:00'), end: at(d, '23:00') })),
  }));
  const offline = ['studio-b', 'studio-e'];
  const bookings: SolverBooking[] = [];
  let affected = 0;
  for (const day of days) {
    for (const { id: roomId } of rooms) {
      const isOffline = offline.includes(roomId);
      const inWindow = day >= 1 && day <= DAYS;
      // Spread the affected bookings evenly over the window's days in the two offline rooms.
      const quota =
        isOffline && inWindow
          ? Math.round((affectedWanted * (day * 2 - (roomId === 'studio-b' ? 1 : 0))) / (DAYS * 2)) - affected
          : r.int(1, 3);
      let cursor = at(day, '08:00') + r.int(0, 4) * 15 * MINUTE;
      for (let n = 0; n < quota; n++) {
        const duration = r.int(3, 10) * 15 * MINUTE;
        if (cursor + duration > at(day, '23:00')) break;
        bookings.push({
          id: `${roomId}-d${String(day).padStart(2, '0')}-${n}`,
          roomId,
          start: cursor,
          end: cursor + duration,
          attendees: r.int(1, 8),
          requiredFeatures: r.next() < 0.25 ? [r.pick(['piano', 'vocal-booth'])] : [],
          seriesId: null,
          flexMinutes: r.pick([0, 15, 30, 30, 45, 60, 60]),
        });
        if (isOffline && inWindow) affected++;
        cursor += duration + r.int(0, isOffline ? 3 : 16) * 15 * MINUTE;
      }
    }
  }
  return { rooms, bookings, offlineRooms: offline, window: { start: at(1, '00:00'), end: at(DAYS + 1, '00:00') } };
}
