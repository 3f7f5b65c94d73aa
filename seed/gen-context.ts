// The generator's working state and the small rules every placement phase shares: which
// activities a room can host, where a start may fall, and how a draft is recorded.
import type { Rng } from './prng.ts';
import type { BookingStatus } from './site-file.ts';
import type { RoomSpec } from './room-spec.ts';
import type { LocalDay } from './local-time.ts';
import type { DayCalendar } from './day-calendar.ts';
import type { CustomerBook } from './customer-book.ts';
import { ACTIVITIES, type Activity } from './activities.ts';
import { parseHm } from './local-time.ts';

/** A booking before ids and instants: a room, a local date and local minutes. */
export interface Draft {
  roomId: string;
  date: string;
  start: number;
  end: number;
  title: string;
  customer: string;
  attendees: number;
  requiredFeatures: string[];
  flexMinutes: number;
  status: BookingStatus;
  seriesKey?: number;
  /** Only one-offs may be dropped when a count is pinned. */
  origin: 'fixed' | 'series' | 'one-off';
}

export interface SeriesDraft {
  key: number;
  title: string;
  customer: string;
}

export interface GenContext {
  zone: string;
  days: LocalDay[];
  rooms: RoomSpec[];
  calendar: DayCalendar;
  customers: CustomerBook;
  drafts: Draft[];
  series: SeriesDraft[];
  skipRate: number;
  cancelRate: number;
}

export const GRID = 15;

export function hoursOf(room: RoomSpec): { opens: number; closes: number } {
  return { opens: parseHm(room.opensAt), closes: parseHm(room.closesAt) };
}

/** Activities the room's kit and size allow and its profile wants. */
export function activitiesFor(room: RoomSpec, weeklyOnly = false): Activity[] {
  return ACTIVITIES.filter(
    (a) =>
      (room.profile[a.kind] ?? 0) > 0 &&
      a.requires.every((f) => room.features.includes(f)) &&
      a.attendees[0] <= room.capacity &&
      (!weeklyOnly || a.weekly),
  );
}

export function attendeesFor(rng: Rng, a: Activity, room: RoomSpec): number {
  return rng.int(a.attendees[0], Math.min(a.attendees[1], room.capacity));
}

/**
 * A start for `duration` minutes inside the free span and the activity's band, on the 15-minute
 * grid, or null. Biased to the span's edges so rooms pack the way real diaries do.
 */
export function pickStart(rng: Rng, span: [number, number], band: [number, number], duration: number): number | null {
  const lo = Math.ceil(Math.max(span[0], band[0]) / GRID) * GRID;
  const hi = Math.floor(Math.min(span[1] - duration, band[1] - GRID) / GRID) * GRID;
  if (hi < lo) return null;
  const roll = rng.next();
  if (roll < 0.35) return lo;
  if (roll < 0.5) return hi;
  return lo + GRID * rng.int(0, (hi - lo) / GRID);
}

export function addDraft(ctx: GenContext, draft: Draft): void {
  ctx.calendar.add(draft.roomId, draft.date, draft.start, draft.end);
  ctx.drafts.push(draft);
}

export function removeDraft(ctx: GenContext, draft: Draft): void {
  ctx.calendar.remove(draft.roomId, draft.date, draft.start, draft.end);
  ctx.drafts.splice(ctx.drafts.indexOf(draft), 1);
}
