import { DateTime } from 'luxon';
import type { BookingRow, StoreQueries } from '@reflow/db';
import type { Problem } from '@reflow/solver';
import { PermanentTaskError, type TaskScope } from '@reflow/tasks';
import type { ReflowInput } from './reflow-args.ts';
import { atLocalTime, localDates, localMidnight, nextLocalMidnight } from './local-time.ts';

export interface Snapshot {
  problem: Problem;
  timezone: string;
  /** The version of every booking the plan may touch, to re-check at apply time. */
  versions: Record<string, number>;
  /** The site's generation: a re-import restarts booking versions, so the apply checks this first. */
  generation: number;
  bookings: Record<string, BookingRow>;
}

/** Placements may shift by at most a day's worth of flex; a day either side covers every candidate. */
const MARGIN_DAYS = 1;

/**
 * The local days a reflow reads and may write: its window and a margin day either side. Calendar
 * arithmetic on dates (in UTC, which has no clock changes), never in the server process's zone.
 */
function readDays(input: ReflowInput): { first: string; last: string } {
  return {
    first: DateTime.fromISO(input.from, { zone: 'utc' }).minus({ days: MARGIN_DAYS }).toISODate()!,
    last: DateTime.fromISO(input.to, { zone: 'utc' }).plus({ days: MARGIN_DAYS }).toISODate()!,
  };
}

/**
 * What a reflow that applies its plan holds exclusively. Any room can receive a moved booking, so
 * every two reflows share rooms; they conflict when the days they read and write overlap. A dry run
 * writes nothing and holds nothing.
 */
export async function reflowScope(input: ReflowInput, store: StoreQueries): Promise<TaskScope | undefined> {
  // A dry run holds nothing: it does not read the site (a create of one skips the query).
  if (input.dryRun) return undefined;
  const site = await store.site.getSite();
  if (!site) return undefined;
  const { first, last } = readDays(input);
  return { key: 'bookings', start: localMidnight(first, site.timezone), end: nextLocalMidnight(last, site.timezone) };
}

/** Reads what the solver needs, as instants: rooms' opening hours per local day and the confirmed bookings around the window. */
export async function readSnapshot(input: ReflowInput, store: StoreQueries): Promise<Snapshot> {
  const site = await store.site.getSite();
  if (!site) throw new PermanentTaskError('No site has been imported yet', -32602);
  const zone = site.timezone;
  const window = { start: localMidnight(input.from, zone), end: nextLocalMidnight(input.to, zone) };
  const { first, last } = readDays(input);
  const days = localDates(first, last);
  const rooms = (await store.site.listRooms()).map((room) => ({
    id: room.id,
    capacity: room.capacity,
    features: [...room.features].sort(),
    open: days.map((d) => ({ start: atLocalTime(d, room.opensAt, zone), end: atLocalTime(d, room.closesAt, zone) })),
  }));
  const rows = await store.bookings.overlapping({
    from: localMidnight(first, zone),
    to: nextLocalMidnight(last, zone),
    statuses: ['confirmed'],
  });
  const versions: Record<string, number> = {};
  const bookings: Record<string, BookingRow> = {};
  for (const b of rows) {
    versions[b.id] = b.version;
    bookings[b.id] = b;
  }
  return {
    timezone: zone,
    generation: site.generation,
    versions,
    bookings,
    problem: {
      rooms,
      offlineRooms: input.offlineRooms,
      window,
      bookings: rows.map((b) => ({
        id: b.id,
        roomId: b.roomId,
        start: b.startAt,
        end: b.endAt,
        attendees: b.attendees,
        requiredFeatures: [...b.requiredFeatures].sort(),
        seriesId: b.seriesId,
        flexMinutes: b.flexMinutes,
      })),
    },
  };
}
