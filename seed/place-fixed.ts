// Hand-written bookings and holds that a scenario needs at exact times (the story's blockers
// and contested slots). They go in first, so the random phases work around them.
import type { BookingStatus } from './site-file.ts';
import { addDraft, hoursOf, type GenContext } from './gen-context.ts';
import { parseHm } from './local-time.ts';

export interface FixedBooking {
  roomId: string;
  /** Local date YYYY-MM-DD and wall-clock HH:mm. */
  date: string;
  from: string;
  to: string;
  title: string;
  /** Party name; becomes a customer id shared with its other bookings. */
  party: string;
  attendees: number;
  requiredFeatures?: string[];
  flexMinutes?: number;
  status?: BookingStatus;
}

/** Time kept free: the random phases may not book it, and it is never written out. */
export interface Hold {
  roomId: string;
  date: string;
  from: string;
  to: string;
}

function checkedSpan(ctx: GenContext, what: string, h: Hold): [number, number] {
  const room = ctx.rooms.find((r) => r.id === h.roomId);
  if (!room) throw new Error(`${what}: unknown room ${h.roomId}`);
  if (!ctx.days.some((d) => d.date === h.date)) throw new Error(`${what}: ${h.date} is not in the month`);
  const start = parseHm(h.from);
  const end = parseHm(h.to);
  const { opens, closes } = hoursOf(room);
  if (start < opens || end > closes || end <= start) {
    throw new Error(`${what}: ${h.from}-${h.to} is outside ${room.id}'s hours`);
  }
  return [start, end];
}

export function placeFixed(ctx: GenContext, fixed: readonly FixedBooking[], holds: readonly Hold[]): void {
  for (const f of fixed) {
    const what = `fixed booking "${f.title}"`;
    const [start, end] = checkedSpan(ctx, what, f);
    const room = ctx.rooms.find((r) => r.id === f.roomId)!;
    const features = f.requiredFeatures ?? [];
    if (f.attendees > room.capacity || !features.every((x) => room.features.includes(x))) {
      throw new Error(`${what}: ${room.id} cannot host it`);
    }
    addDraft(ctx, {
      roomId: f.roomId,
      date: f.date,
      start,
      end,
      title: f.title,
      customer: ctx.customers.idFor(f.party),
      attendees: f.attendees,
      requiredFeatures: [...features],
      flexMinutes: f.flexMinutes ?? 0,
      status: f.status ?? 'confirmed',
      origin: 'fixed',
    });
  }
  for (const h of holds) {
    const [start, end] = checkedSpan(ctx, `hold in ${h.roomId}`, h);
    ctx.calendar.add(h.roomId, h.date, start, end);
  }
}
