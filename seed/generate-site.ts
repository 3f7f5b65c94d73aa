// The scenario generator: a deterministic month of bookings for a campus of any size, in the
// import format. Phases run in a fixed order, each room on its own PRNG stream: fixed bookings
// and holds, weekly series, one-offs up to each room's target, then any pinned count.
import type { SiteFile } from './site-file.ts';
import type { FixedBooking, Hold } from './place-fixed.ts';
import type { PinCount } from './pin-count.ts';
import type { GenContext } from './gen-context.ts';
import { createRng, forkSeed } from './prng.ts';
import { monthDays } from './local-time.ts';
import { DayCalendar } from './day-calendar.ts';
import { CustomerBook } from './customer-book.ts';
import { DEMO_ROOMS } from './demo-rooms.ts';
import { buildRooms } from './room-factory.ts';
import { placeFixed } from './place-fixed.ts';
import { placeSeries } from './place-series.ts';
import { fillRoom } from './place-one-offs.ts';
import { pinCount } from './pin-count.ts';
import { finalizeSite } from './finalize-site.ts';

export interface GenerateOptions {
  seed: number;
  /** YYYY-MM */
  month: string;
  /** IANA zone; default Europe/London. */
  timezone?: string;
  siteName?: string;
  /** Number of rooms; the named demo rooms come first. Default: the demo's 8. */
  rooms?: number;
  /** Multiplies every room's target share of booked opening minutes. Default 1. */
  density?: number;
  /** Weekly series per room, overriding each room's own figure. */
  seriesPerRoom?: number;
  /** Chance per week that a series skips one week of the month. Default 0.05. */
  skipRate?: number;
  /** Chance that any booking is cancelled. Default 0.03. */
  cancelRate?: number;
  fixed?: readonly FixedBooking[];
  holds?: readonly Hold[];
  pin?: PinCount;
}

export function generateSite(options: GenerateOptions): SiteFile {
  const { seed, month } = options;
  const zone = options.timezone ?? 'Europe/London';
  const rooms = buildRooms(options.rooms ?? DEMO_ROOMS.length, createRng(forkSeed(seed, 'rooms')));
  const ctx: GenContext = {
    zone,
    days: monthDays(month, zone),
    rooms,
    calendar: new DayCalendar(),
    customers: new CustomerBook(),
    drafts: [],
    series: [],
    skipRate: options.skipRate ?? 0.05,
    cancelRate: options.cancelRate ?? 0.03,
  };

  placeFixed(ctx, options.fixed ?? [], options.holds ?? []);
  const usedParties = new Set<string>();
  for (const room of rooms) {
    const rng = createRng(forkSeed(seed, `series:${room.id}`));
    placeSeries(ctx, rng, room, options.seriesPerRoom ?? room.series, usedParties);
  }
  for (const room of rooms) {
    const rng = createRng(forkSeed(seed, `one-offs:${room.id}`));
    fillRoom(ctx, rng, room, room.utilisation * (options.density ?? 1));
  }
  if (options.pin) pinCount(ctx, createRng(forkSeed(seed, 'pin')), options.pin);

  return finalizeSite(ctx, { name: options.siteName ?? 'Riverside Studios', timezone: zone }, rooms);
}
