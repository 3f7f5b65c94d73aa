// Small random instances for the exhaustive comparison: 2–4 rooms, 3–7 affected bookings,
// flex 0–60, some blockers, features and capacities tight enough that bookings compete.
import type { Problem, SolverBooking, SolverRoom } from '../src/index.ts';
import { at, MINUTE, prng } from './helpers.ts';

const FEATURES = ['booth', 'piano'] as const;
const FLEX = [0, 15, 20, 30, 45, 50, 60] as const;

export function randomInstance(seed: number): Problem {
  for (let attempt = 0; ; attempt++) {
    const p = attemptInstance(seed * 1000 + attempt);
    const affected = p.bookings.filter(
      (b) => p.offlineRooms.includes(b.roomId) && b.start < p.window.end && p.window.start < b.end,
    );
    if (affected.length >= 3 && affected.length <= 7) return p;
  }
}

function attemptInstance(seed: number): Problem {
  const r = prng(seed);
  const rooms: SolverRoom[] = [];
  const count = r.int(2, 4);
  for (let i = 0; i < count; i++) {
    const open = r.pick(['08:00', '09:00']);
    const close = r.pick(['18:00', '20:00', '22:00']);
    const days = r.next() < 0.08 ? [0, 2] : [0, 1, 2];
    rooms.push({
      id: `r${i}`,
      capacity: r.int(5, 14),
      features: FEATURES.filter(() => r.next() < 0.6),
      open: days.map((d) => ({ start: at(d, open), end: at(d, close) })),
    });
  }
  const offline = count >= 3 && r.next() < 0.6 ? ['r0', 'r1'] : ['r0'];
  const window = r.pick([
    { start: at(1, '00:00'), end: at(2, '00:00') },
    { start: at(1, '00:00'), end: at(1, '13:00') },
    { start: at(1, '12:00'), end: at(2, '00:00') },
  ]);
  const bookings: SolverBooking[] = [];
  for (const target of rooms) {
    const isOffline = offline.includes(target.id);
    // Offline rooms get a busy day; others a few blockers.
    let cursor = at(1, '08:00') + r.int(0, 4) * 15 * MINUTE;
    const wanted = isOffline ? r.int(2, 6) : r.int(0, 2);
    for (let n = 0; n < wanted; n++) {
      const duration = r.int(2, 12) * 15 * MINUTE;
      const start = cursor + (r.next() < 0.15 ? 5 * MINUTE : 0);
      if (start + duration > at(1, '20:00')) break;
      bookings.push({
        id: `${target.id}-b${n}`,
        roomId: target.id,
        start,
        end: start + duration,
        attendees: r.next() < 0.05 ? 15 : r.int(1, 8),
        requiredFeatures: FEATURES.filter(() => r.next() < 0.12),
        seriesId: null,
        flexMinutes: r.pick(FLEX),
      });
      cursor = start + duration + r.int(0, isOffline ? 2 : 16) * 15 * MINUTE;
    }
  }
  return { rooms, bookings, offlineRooms: offline, window };
}
