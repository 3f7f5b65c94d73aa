import { asc, sql } from 'drizzle-orm';
import type { Db } from '../connection.ts';
import { bookings, reflowMoves, reflowUnresolved, rooms, series, site } from '../schema/index.ts';

export type SiteRow = typeof site.$inferSelect;
export type RoomRow = typeof rooms.$inferSelect;
export type SeriesRow = typeof series.$inferInsert;
export type NewBookingRow = typeof bookings.$inferInsert;

export interface SiteData {
  site: { name: string; timezone: string };
  rooms: RoomRow[];
  series: SeriesRow[];
  bookings: NewBookingRow[];
}

export function siteQueries(db: Db) {
  // Prepared once: every reflow_month call checks its rooms against these.
  const siteRow = db.select().from(site).prepare();
  const allRooms = db.select().from(rooms).orderBy(asc(rooms.id)).prepare();
  // Ids only, straight from better-sqlite3: mapping whole room rows cost a create 0.15 ms.
  const allRoomIds = db.$client.prepare<[], string>('SELECT id FROM rooms ORDER BY id').pluck();
  // One primary-key lookup per asked id: reading every room per create cost it 27 µs.
  const roomExists = db.$client.prepare<[string], number>('SELECT 1 FROM rooms WHERE id = ?').pluck();
  return {
    getSite(): SiteRow | undefined {
      return siteRow.get();
    },

    /** SQLite's write lock, taken at BEGIN IMMEDIATE, already keeps every import out until COMMIT. */
    lockedGeneration(): number | undefined {
      return siteRow.get()?.generation;
    },

    listRooms(): RoomRow[] {
      return allRooms.all();
    },

    roomIds(): string[] {
      return allRoomIds.all();
    },

    unknownRooms(ids: string[]): string[] {
      return ids.filter((id) => roomExists.get(id) === undefined);
    },

    /** SQLite's write lock, taken at BEGIN IMMEDIATE, already makes a transaction the one import. */
    lockForImport(): void {},

    bookingCount(): number {
      return db
        .select({ n: sql<number>`count(*)` })
        .from(bookings)
        .get()!.n;
    },

    /**
     * Writes a whole site in one transaction; with `replace`, the previous site goes first and the
     * new one is the next generation (never one a plan may have been made from).
     */
    writeSite(data: SiteData, replace: boolean): void {
      db.transaction((tx) => {
        const previous = tx.select({ generation: site.generation }).from(site).get();
        if (replace) {
          tx.delete(reflowMoves).run();
          tx.delete(reflowUnresolved).run();
          tx.delete(bookings).run();
          tx.delete(series).run();
          tx.delete(rooms).run();
          tx.delete(site).run();
        }
        tx.insert(site)
          .values({ id: 1, ...data.site, generation: (previous?.generation ?? 0) + 1 })
          .run();
        for (const room of data.rooms) tx.insert(rooms).values(room).run();
        for (const s of data.series) tx.insert(series).values(s).run();
        for (const b of data.bookings) tx.insert(bookings).values(b).run();
      });
    },
  };
}

export type SiteQueries = ReturnType<typeof siteQueries>;
