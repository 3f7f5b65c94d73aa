// Builds small solver instances for tests: rooms open on given UTC days, bookings by day and
// HH:MM, and a feasibility assertion every solved plan goes through.
import assert from 'node:assert/strict';
import { checkPlan, type Plan, type Problem, type SolverBooking, type SolverRoom } from '../src/index.ts';
import { createRng } from '@reflow/seed';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** Monday 2026-09-07 00:00 UTC: day 0 of every test instance. */
export const BASE = Date.UTC(2026, 8, 7);

/** Instant of `hh:mm` on day `day` (UTC). */
export function at(day: number, hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return BASE + day * DAY + h * HOUR + m * MINUTE;
}

export interface RoomSpec {
  capacity?: number;
  features?: string[];
  days?: number[];
  open?: string;
  close?: string;
}

export function room(id: string, spec: RoomSpec = {}): SolverRoom {
  const { capacity = 10, features = [], days = [0, 1, 2], open = '08:00', close = '23:00' } = spec;
  return { id, capacity, features, open: days.map((d) => ({ start: at(d, open), end: at(d, close) })) };
}

export interface BookingSpec {
  attendees?: number;
  features?: string[];
  flex?: number;
  seriesId?: string | null;
}

export function booking(
  id: string,
  roomId: string,
  day: number,
  from: string,
  to: string,
  spec: BookingSpec = {},
): SolverBooking {
  const { attendees = 2, features = [], flex = 0, seriesId = null } = spec;
  return {
    id,
    roomId,
    start: at(day, from),
    end: at(day, to),
    attendees,
    requiredFeatures: features,
    seriesId,
    flexMinutes: flex,
  };
}

/** Offline window covering whole days [fromDay, toDay]. */
export function problem(
  rooms: SolverRoom[],
  bookings: SolverBooking[],
  offline: string[],
  fromDay = 1,
  toDay = fromDay,
): Problem {
  return {
    rooms,
    bookings,
    offlineRooms: offline,
    window: { start: at(fromDay, '00:00'), end: at(toDay + 1, '00:00') },
  };
}

export function assertFeasible(p: Problem, plan: Plan): void {
  assert.deepEqual(checkPlan(p, plan), []);
}

/** Small seeded PRNG (mulberry32, the generator's own): the same seed always gives the same instances. */
export const prng = createRng;

/** Fisher–Yates with the given PRNG; returns a new array. */
export function shuffled<T>(xs: readonly T[], rand: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
