// One-off bookings: drawn from the room's profile into free gaps of random days until the room
// reaches its target share of opening minutes (or stops finding room).
import type { Rng } from './prng.ts';
import type { RoomSpec } from './room-spec.ts';
import type { LocalDay } from './local-time.ts';
import { NAMES } from './names.ts';
import {
  activitiesFor,
  addDraft,
  attendeesFor,
  hoursOf,
  pickStart,
  type Draft,
  type GenContext,
} from './gen-context.ts';

/**
 * Try once to place a one-off on `day`; returns the draft or null when nothing fitted.
 * `shortest` takes the activity's shortest length, to fill the last small gaps of a full room.
 */
export function tryOneOff(ctx: GenContext, rng: Rng, room: RoomSpec, day: LocalDay, shortest = false): Draft | null {
  const options = activitiesFor(room).filter((a) => a.days.includes(day.weekday));
  if (options.length === 0) return null;
  const act = rng.weighted(options, (a) => room.profile[a.kind] ?? 0);
  const duration = shortest ? Math.min(...act.durations) : rng.pick(act.durations);
  const { opens, closes } = hoursOf(room);
  const gaps = ctx.calendar.gaps(room.id, day.date, opens, closes).filter(([s, e]) => e - s >= duration);
  if (gaps.length === 0) return null;
  const start = pickStart(rng, rng.pick(gaps), act.band, duration);
  if (start === null) return null;
  const party = rng.pick(NAMES[act.party]);
  const draft: Draft = {
    roomId: room.id,
    date: day.date,
    start,
    end: start + duration,
    title: act.title(party, rng),
    customer: ctx.customers.idFor(party),
    attendees: attendeesFor(rng, act, room),
    requiredFeatures: [...act.requires],
    flexMinutes: rng.pick(act.flex),
    status: rng.chance(ctx.cancelRate) ? 'cancelled' : 'confirmed',
    origin: 'one-off',
  };
  addDraft(ctx, draft);
  return draft;
}

export function bookedMinutes(ctx: GenContext, roomId: string): number {
  return ctx.drafts.filter((d) => d.roomId === roomId).reduce((sum, d) => sum + d.end - d.start, 0);
}

export function fillRoom(ctx: GenContext, rng: Rng, room: RoomSpec, utilisation: number): void {
  const { opens, closes } = hoursOf(room);
  const target = Math.min(0.95, utilisation) * (closes - opens) * ctx.days.length;
  let booked = bookedMinutes(ctx, room.id);
  // Bounded attempts: a nearly full room simply stops short of its target.
  for (let attempt = 0; attempt < 6000 && booked < target; attempt++) {
    const draft = tryOneOff(ctx, rng, room, rng.pick(ctx.days));
    if (draft) booked += draft.end - draft.start;
  }
}
