import { asc, eq, sql } from 'drizzle-orm';
import {
  atVersionWhere,
  confirmedOverlap,
  movableWhere,
  overlappingWhere,
  vacatableWhere,
  VACATED,
} from './booking-where.ts';
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
      status: 'confirmed',
      version: sql`${bookings.version} + 1`,
    })
    .where(movableWhere(bookings, sql.placeholder('id'), sql.placeholder('expectedVersion')))
    .prepare();
  const setStatusIfVersion = db
    .update(bookings)
    .set({ status: sql`${sql.placeholder('status')}`, version: sql`${bookings.version} + 1` })
    .where(atVersionWhere(bookings, sql.placeholder('id'), sql.placeholder('expectedVersion')))
    .prepare();

  return {
    /** Bookings whose [start, end) overlaps [from, to), optionally in some rooms and with given statuses. */
    overlapping(range: { from: number; to: number; roomIds?: string[]; statuses?: BookingStatus[] }): BookingRow[] {
      return db
        .select()
        .from(bookings)
        .where(overlappingWhere(bookings, range))
        .orderBy(asc(bookings.startAt), asc(bookings.id))
        .all();
    },

    get(id: string): BookingRow | undefined {
      return getById.get({ id });
    },

    /** The same rows: SQLite's write lock, taken at BEGIN IMMEDIATE, already keeps every row as read. */
    getForUpdate(ids: string[]): BookingRow[] {
      return ids.map((id) => getById.get({ id })).filter((row) => row !== undefined);
    },

    /** A confirmed booking in `roomId` overlapping [start, end), other than the ones excluded. */
    firstConflict(roomId: string, start: number, end: number, exclude: string[]): BookingRow | undefined {
      return db
        .select()
        .from(bookings)
        .where(confirmedOverlap(bookings, roomId, start, end, exclude))
        .get();
    },

    /** Moves a booking if it is still the version the plan was made from. */
    vacate(ids: string[]): void {
      if (ids.length === 0) return;
      db.update(bookings)
        .set({ status: sql`${VACATED}` })
        .where(vacatableWhere(bookings, ids))
        .run();
    },

    move(id: string, expectedVersion: number, to: { roomId: string; startAt: number; endAt: number }): boolean {
      return moveIfVersion.run({ id, expectedVersion, ...to }).changes === 1;
    },

    setStatus(id: string, expectedVersion: number, status: BookingStatus): boolean {
      return setStatusIfVersion.run({ id, expectedVersion, status }).changes === 1;
    },
  };
}

export type BookingQueries = ReturnType<typeof bookingQueries>;
