import { solve, checkPlan } from '../src/index.ts';
import { at, MINUTE, prng } from './helpers.ts';
import type { Problem, SolverBooking } from '../src/index.ts';
for (const seed of [1, 2, 3]) {
  const r = prng(seed);
  const rooms = Array.from({ length: 10 }, (_, i) => ({ id: `s${i}`, capacity: r.int(4, 12), features: r.next() < 0.5 ? ['piano'] : [], open: [{ start: at(1, '08:00'), end: at(1, '23:00') }] }));
  const offline = rooms.slice(0, +process.argv[2] || 5).map((x) => x.id);
  const bookings: SolverBooking[] = [];
  for (const room of rooms) {
    let cursor = at(1, '08:00');
    for (let n = 0; n < 12; n++) {
      const d = r.int(2, 8) * 15 * MINUTE;
      if (cursor + d > at(1, '23:00')) break;
      const isOff = offline.includes(room.id);
      if (isOff || n < 2) bookings.push({ id: `${room.id}-${n}`, roomId: room.id, start: cursor, end: cursor + d, attendees: r.int(1, 6), requiredFeatures: r.next() < 0.2 ? ['piano'] : [], seriesId: null, flexMinutes: r.pick([0, 30, 60, 90, 120]) });
      cursor += d + (isOff ? r.int(0, 2) : r.int(4, 16)) * 15 * MINUTE;
    }
  }
  const p: Problem = { rooms, bookings, offlineRooms: offline, window: { start: at(1, '00:00'), end: at(2, '00:00') } };
  const t = performance.now();
  let comps = 0;
  const plan = solve(p, { componentBudgetMs: +process.argv[3] || 10000 }, { onProgress: (x) => { comps++; } });
  console.log(seed, (performance.now() - t).toFixed(0), 'ms', plan.affected, plan.moves.length, plan.movedBound, plan.optimal, plan.components, plan.totalShiftMinutes, checkPlan(p, plan).length, process.memoryUsage().rss / 1e6 | 0, 'MB');
}
