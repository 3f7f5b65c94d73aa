import { and, asc, eq, gt, inArray, lt, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../connection.ts';
import { bookings, type BookingStatus } from '../schema/index.ts';

export type BookingRow = typeof bookings.$inferSelect;

export function bookingQueries(db: Db) {
  // The per-booking statements an apply runs hundreds of times in one transaction: built and
  // prepared once per connection, not on every call.
  const getById = db
    .select()
    .from(bookings)
    .where(eq(bookings.id, sql.placeholder('id')))
    .prepare();
  const moveIfVersion = db
    .update(bookings)
    .set({
      roomId: sql`${sql.placeholder('roomId')}`,
      startAt: sql`${sql.placeholder('startAt')}`,
      endAt: sql`${sql.placeholder('endAt')}`,
      version: sql`${bookings.version} + 1`,
    })
    .where(
      and(
        eq(bookings.id, sql.placeholder('id')),
        eq(bookings.version, sql.placeholder('expectedVersion')),
        eq(bookings.status, 'confirmed'),
      ),
    )
    .prepare();
  const setStatusIfVersion = db
    .update(bookings)
    .set({ status: sql`${sql.placeholder('status')}`, version: sql`${bookings.version} + 1` })
    .where(and(eq(bookings.id, sql.placeholder('id')), eq(bookings.version, sql.placeholder('expectedVersion'))))
    .prepare();

  return {
    /** Bookings whose [start, end) overlaps [from, to), optionally in some rooms and with given statuses. */
    overlapping(range: { from: number; to: number; roomIds?: string[]; statuses?: BookingStatus[] }): BookingRow[] {
      return db
        .select()
        .from(bookings)
        .where(
          and(
            lt(bookings.startAt, range.to),
            gt(bookings.endAt, range.from),
            range.roomIds ? inArray(bookings.roomId, range.roomIds) : undefined,
            range.statuses ? inArray(bookings.status, range.statuses) : undefined,
          ),
        )
        .orderBy(asc(bookings.startAt), asc(bookings.id))
        .all();
    },

    get(id: string): BookingRow | undefined {
      return getById.get({ id });
    },

    /** A confirmed booking in `roomId` overlapping [start, end), other than the ones excluded. */
    firstConflict(roomId: string, start: number, end: number, exclude: string[]): BookingRow | undefined {
      return db
        .select()
        .from(bookings)
        .where(
          and(
            eq(bookings.roomId, roomId),
            eq(bookings.status, 'confirmed'),
            lt(bookings.startAt, end),
            gt(bookings.endAt, start),
            exclude.length ? notInArray(bookings.id, exclude) : undefined,
          ),
        )
        .get();
    },

    /** Moves a booking if it is still the version the plan was made from. */
    move(id: string, expectedVersion: number, to: { roomId: string; startAt: number; endAt: number }): boolean {
      return moveIfVersion.run({ id, expectedVersion, ...to }).changes === 1;
    },

    setStatus(id: string, expectedVersion: number, status: BookingStatus): boolean {
      return setStatusIfVersion.run({ id, expectedVersion, status }).changes === 1;
    },
  };
}

export type BookingQueries = ReturnType<typeof bookingQueries>;
