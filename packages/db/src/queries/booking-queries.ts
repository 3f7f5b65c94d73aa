import { and, asc, eq, gt, inArray, lt, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../connection.ts';
import { bookings, type BookingStatus } from '../schema/index.ts';

export type BookingRow = typeof bookings.$inferSelect;

export function bookingQueries(db: Db) {
  return {
    /** Bookings whose [start, end) overlaps [from, to), optionally in one room and with given statuses. */
    overlapping(range: { from: number; to: number; roomId?: string; statuses?: BookingStatus[] }): BookingRow[] {
      return db
        .select()
        .from(bookings)
        .where(
          and(
            lt(bookings.startAt, range.to),
            gt(bookings.endAt, range.from),
            range.roomId ? eq(bookings.roomId, range.roomId) : undefined,
            range.statuses ? inArray(bookings.status, range.statuses) : undefined,
          ),
        )
        .orderBy(asc(bookings.startAt), asc(bookings.id))
        .all();
    },

    get(id: string): BookingRow | undefined {
      return db.select().from(bookings).where(eq(bookings.id, id)).get();
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
      return (
        db
          .update(bookings)
          .set({ ...to, version: sql`${bookings.version} + 1` })
          .where(and(eq(bookings.id, id), eq(bookings.version, expectedVersion), eq(bookings.status, 'confirmed')))
          .run().changes === 1
      );
    },

    setStatus(id: string, expectedVersion: number, status: BookingStatus): boolean {
      return (
        db
          .update(bookings)
          .set({ status, version: sql`${bookings.version} + 1` })
          .where(and(eq(bookings.id, id), eq(bookings.version, expectedVersion)))
          .run().changes === 1
      );
    },
  };
}

export type BookingQueries = ReturnType<typeof bookingQueries>;
