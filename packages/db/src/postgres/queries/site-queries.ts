// The site, its rooms and bookings as a whole (as queries/site-queries.ts).
import { asc, inArray, sql } from 'drizzle-orm';
import type { SiteStore } from '../../store.ts';
import { LOCK_CLASS, SIGNAL_CHANNEL, type PgDb } from '../pg-db.ts';
import { bookings, reflowMoves, reflowUnresolved, rooms, series, site } from '../schema/index.ts';
import { countAll, first } from './task-sql.ts';

/** Rows per INSERT: well under PostgreSQL's 65535 parameters a statement. */
const CHUNK = 1000;

async function insertChunked<T>(rows: T[], insert: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) await insert(rows.slice(i, i + CHUNK));
}

/**
 * Imports take turns on this lock before they read anything. A row lock alone is not enough: an
 * import waiting on the site row `FOR UPDATE` while another replaces it finds the row deleted, and
 * would judge "no site" (generation 1, or a first import's key clash) on a snapshot without the new one.
 */
async function lockForImport(db: PgDb): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock(${LOCK_CLASS.siteImport}, 0)`);
}

export function siteQueries(db: PgDb): SiteStore {
  return {
    getSite: async () => (await db.select().from(site).limit(1))[0],

    /**
     * `FOR SHARE`: an import locks the site row `FOR UPDATE` before it writes anything, so it waits for
     * this transaction, or this read waits for the import. A replacing import deletes the row it
     * locked: the locked read then finds none, and a new statement reads the new site's generation.
     */
    lockedGeneration: async () => {
      const locked = first(await db.select({ generation: site.generation }).from(site).limit(1).for('share'));
      if (locked) return locked.generation;
      return first(await db.select({ generation: site.generation }).from(site).limit(1))?.generation;
    },

    listRooms: () => db.select().from(rooms).orderBy(asc(rooms.id)),

    roomIds: async () => (await db.select({ id: rooms.id }).from(rooms).orderBy(asc(rooms.id))).map((r) => r.id),

    unknownRooms: async (ids) => {
      if (ids.length === 0) return [];
      const known = new Set(
        (await db.select({ id: rooms.id }).from(rooms).where(inArray(rooms.id, ids))).map((r) => r.id),
      );
      return ids.filter((id) => !known.has(id));
    },

    lockForImport: () => lockForImport(db),

    bookingCount: async () => (await db.select({ n: countAll }).from(bookings))[0].n,

    /**
     * One transaction. The import lock first, so two imports at once take turns over the generation;
     * then the site row `FOR UPDATE`, so the import waits for every apply that read it `FOR SHARE`.
     */
    writeSite: (data, replace) =>
      db.transaction(async (tx) => {
        await lockForImport(tx);
        const previous = first(await tx.select({ generation: site.generation }).from(site).for('update'));
        if (replace) {
          await tx.delete(reflowMoves);
          await tx.delete(reflowUnresolved);
          await tx.delete(bookings);
          await tx.delete(series);
          await tx.delete(rooms);
          await tx.delete(site);
        }
        await tx.insert(site).values({ id: 1, ...data.site, generation: (previous?.generation ?? 0) + 1 });
        await insertChunked(data.rooms, (chunk) => tx.insert(rooms).values(chunk));
        await insertChunked(data.series, (chunk) => tx.insert(series).values(chunk));
        await insertChunked(data.bookings, (chunk) => tx.insert(bookings).values(chunk));
        // Heard by every node's site cache (site-cache.ts) once this import commits.
        await tx.execute(sql`select pg_notify(${SIGNAL_CHANNEL}, ${`site:${(previous?.generation ?? 0) + 1}`})`);
      }),
  };
}
