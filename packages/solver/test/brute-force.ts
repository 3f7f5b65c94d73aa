// The reference optimum by exhaustive search, written from the specification without any of the
// solver's code, so a shared bug cannot hide: enumerate every placement, then every combination.
import type { Problem, SolverBooking } from '../src/index.ts';
import { MINUTE } from './helpers.ts';

interface Slot {
  room: string;
  start: number;
  end: number;
  cost: number;
}

const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) =>
  a.start < b.end && b.start < a.end;

function affected(p: Problem): SolverBooking[] {
  return p.bookings.filter((b) => p.offlineRooms.includes(b.roomId) && overlap(b, p.window));
}

export function placements(p: Problem, b: SolverBooking): Slot[] {
  const moving = new Set(affected(p).map((a) => a.id));
  const slots: Slot[] = [];
  for (const room of p.rooms) {
    if (room.capacity < b.attendees || !b.requiredFeatures.every((f) => room.features.includes(f))) continue;
    for (let shift = -b.flexMinutes; shift <= b.flexMinutes; shift++) {
      if (shift % 15 !== 0) continue;
      const start = b.start + shift * MINUTE;
      const slot = { room: room.id, start, end: start + (b.end - b.start), cost: Math.abs(shift) };
      if (!room.open.some((o) => o.start <= slot.start && slot.end <= o.end)) continue;
      if (p.offlineRooms.includes(room.id) && overlap(slot, p.window)) continue;
      if (p.bookings.some((o) => o.roomId === room.id && !moving.has(o.id) && overlap(o, slot))) continue;
      slots.push(slot);
    }
  }
  return slots.sort((x, y) => x.cost - y.cost);
}

/** Most bookings movable, and the least total shift among plans moving that many. */
export function bruteForce(p: Problem): { moved: number; shift: number } {
  const options = affected(p).map((b) => placements(p, b));
  const minCost = options.map((o) => (o.length > 0 ? o[0].cost : 0));
  const best = { moved: -1, shift: Infinity };
  const chosen: Slot[] = [];
  const visit = (i: number, moved: number, shift: number): void => {
    if (i === options.length) {
      if (moved > best.moved || (moved === best.moved && shift < best.shift)) Object.assign(best, { moved, shift });
      return;
    }
    const rest = options.length - i;
    // Pruning that cannot lose the optimum: even moving every remaining booking at its cheapest
    // shift would not beat the best found.
    if (moved + rest < best.moved) return;
    const floor = minCost.slice(i).reduce((a, c) => a + c, 0);
    if (moved + rest === best.moved && shift + floor >= best.shift) return;
    for (const slot of options[i]) {
      if (chosen.some((c) => c.room === slot.room && overlap(c, slot))) continue;
      chosen.push(slot);
      visit(i + 1, moved + 1, shift + slot.cost);
      chosen.pop();
    }
    visit(i + 1, moved, shift);
  };
  visit(0, 0, 0);
  return best;
}
