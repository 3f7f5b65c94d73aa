// The nodes sharing the database, with heartbeats on the database's clock; a lapsed heartbeat
// (judged on the same clock) releases the node's claims.
import { asc, eq } from 'drizzle-orm';
import { lapsedNodesWhere } from '../../queries/node-where.ts';
import type { NodeStore } from '../../store.ts';
import { NOW_MS, type PgDb } from '../pg-db.ts';
import { nodes } from '../schema/index.ts';
import { releaseClaimsIn } from './task-claim-queries.ts';

/** The node queries; `onDatabaseTime` hears the database's clock read by each heartbeat (for Store.clock). */
export function nodeQueries(db: PgDb, onDatabaseTime: (dbNow: number, sentAt: number) => void): NodeStore {
  return {
    register: async (node) => {
      await db
        .insert(nodes)
        .values({ ...node, startedAt: NOW_MS, heartbeatAt: NOW_MS, running: [] })
        .onConflictDoUpdate({ target: nodes.id, set: { heartbeatAt: NOW_MS } });
    },

    heartbeat: async (id, running) => {
      const sentAt = Date.now();
      const rows = await db
        .update(nodes)
        .set({ heartbeatAt: NOW_MS, running })
        .where(eq(nodes.id, id))
        .returning({ at: nodes.heartbeatAt });
      if (rows.length === 1) onDatabaseTime(rows[0].at, sentAt);
      return rows.length === 1;
    },

    /**
     * One transaction: the DELETE re-checks the lapse on each row it removes, so two survivors
     * reaping at once each release a dead node's claims once, and a node that beat meanwhile stays.
     */
    reapLapsed: (lapseMs, message, reaper) =>
      db.transaction(async (tx) => {
        const dead = (
          await tx
            .delete(nodes)
            .where(lapsedNodesWhere(nodes, NOW_MS, lapseMs, reaper))
            .returning({ id: nodes.id })
        ).map((n) => n.id);
        await releaseClaimsIn(tx, dead, message);
        return dead;
      }),

    list: () => db.select().from(nodes).orderBy(asc(nodes.startedAt), asc(nodes.id)),

    unregister: (id, message) =>
      db.transaction(async (tx) => {
        await tx.delete(nodes).where(eq(nodes.id, id));
        await releaseClaimsIn(tx, [id], message);
      }),
  };
}
