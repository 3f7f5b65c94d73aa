// Bookings as a reflow reads and moves them (as queries/booking-queries.ts), with row locks for the apply.
import {
  atVersionWhere,
  confirmedOverlap,
  movableWhere,
  overlappingWhere,
  vacatableWhere,
  VACATED,
} from '../../queries/booking-where.ts';
import { asc, eq, inArray, sql } from 'drizzle-orm';
import type { BookingStore } from '../../store.ts';
import type { PgDb } from '../pg-db.ts';
import { bookings } from '../schema/index.ts';

export function bookingQueries(db: PgDb): BookingStore {
  return {
    overlapping: (range) =>
      db
        .select()
        .from(bookings)
        .where(overlappingWhere(bookings, range))
        .orderBy(asc(bookings.startAt), asc(bookings.id)),

    get: async (id) => (await db.select().from(bookings).where(eq(bookings.id, id)))[0],

    /** Locked in id order, so two transactions locking overlapping sets cannot deadlock. */
    getForUpdate: (ids) =>
      ids.length === 0
        ? Promise.resolve([])
        : db.select().from(bookings).where(inArray(bookings.id, ids)).orderBy(asc(bookings.id)).for('update'),

    firstConflict: async (roomId, start, end, exclude) =>
      (
        await db
          .select()
          .from(bookings)
          .where(confirmedOverlap(bookings, roomId, start, end, exclude))
          .limit(1)
      )[0],

    vacate: async (ids) => {
      if (ids.length === 0) return;
      await db
        .update(bookings)
        .set({ status: sql`${VACATED}` })
        .where(vacatableWhere(bookings, ids));
    },

    move: async (id, expectedVersion, to) =>
      (
        await db
          .update(bookings)
          .set({
            roomId: to.roomId,
            startAt: to.startAt,
            endAt: to.endAt,
            status: 'confirmed',
            version: sql`${bookings.version} + 1`,
          })
          .where(movableWhere(bookings, id, expectedVersion))
          .returning({ id: bookings.id })
      ).length === 1,

    setStatus: async (id, expectedVersion, status) =>
      (
        await db
          .update(bookings)
          .set({ status, version: sql`${bookings.version} + 1` })
          .where(atVersionWhere(bookings, id, expectedVersion))
          .returning({ id: bookings.id })
      ).length === 1,
  };
}
