import { DateTime } from 'luxon';
import { z } from 'zod';
import type { StoreQueries } from '@reflow/db';
import { ReflowInputError } from './errors.ts';
import { localMidnight, toLocalIso } from './local-time.ts';
import { roomId } from './reflow-args.ts';

export const listBookingsArgsSchema = z
  .object({
    month: z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month YYYY-MM, e.g. 2026-09')
      .describe('YYYY-MM'),
    room: roomId.optional().describe('Only this room'),
  })
  .strict();

export async function listRooms(store: StoreQueries) {
  const site = await store.site.getSite();
  return {
    site: site ? { name: site.name, timezone: site.timezone } : null,
    rooms: (await store.site.listRooms()).map((r) => ({
      id: r.id,
      name: r.name,
      capacity: r.capacity,
      features: r.features,
      opensAt: r.opensAt,
      closesAt: r.closesAt,
    })),
  };
}

/** Bookings of a month (any status), with the import format's field names. */
export async function listBookings(args: z.infer<typeof listBookingsArgsSchema>, store: StoreQueries) {
  const site = await store.site.getSite();
  if (!site) return { bookings: [] };
  if (args.room && !(await store.site.listRooms()).some((r) => r.id === args.room))
    throw new ReflowInputError('RFL_UNKNOWN_ROOM', `Unknown room ${args.room}`);
  const zone = site.timezone;
  const first = `${args.month}-01`;
  const next = DateTime.fromISO(first, { zone: 'utc' }).plus({ months: 1 }).toISODate()!;
  const rows = await store.bookings.overlapping({
    from: localMidnight(first, zone),
    to: localMidnight(next, zone),
    ...(args.room ? { roomIds: [args.room] } : {}),
  });
  return {
    bookings: rows.map((b) => ({
      id: b.id,
      roomId: b.roomId,
      start: toLocalIso(b.startAt, zone),
      end: toLocalIso(b.endAt, zone),
      title: b.title,
      customer: b.customer,
      attendees: b.attendees,
      requiredFeatures: b.requiredFeatures,
      seriesId: b.seriesId,
      flexMinutes: b.flexMinutes,
      status: b.status,
    })),
  };
}
