// The nodes sharing the database and their heartbeats; a lapsed heartbeat releases the node's claims.
import { eq, inArray } from 'drizzle-orm';
import { lapsedNodesWhere } from './node-where.ts';
import type { Db } from '../connection.ts';
import { nodes } from '../schema/index.ts';
import { taskClaimQueries } from './task-claim-queries.ts';
import type { SendSignal } from './task-transition.ts';

export type NodeRow = typeof nodes.$inferSelect;

/** `signal`: the claim queries' (a reap sends `released` for each task it gives back). */
export function nodeQueries(db: Db, clock: () => number, signal: SendSignal) {
  const claims = taskClaimQueries(db, clock, signal);
  const immediate = <T>(fn: () => T): T => db.$client.transaction(fn).immediate();
  return {
    register(node: { id: string; host: string; pid: number; workers: number }): void {
      const now = clock();
      db.insert(nodes)
        .values({ ...node, startedAt: now, heartbeatAt: now, running: [] })
        .onConflictDoUpdate({ target: nodes.id, set: { heartbeatAt: now } })
        .run();
    },

    heartbeat(id: string, running: string[]): boolean {
      const now = clock();
      return db.update(nodes).set({ heartbeatAt: now, running }).where(eq(nodes.id, id)).run().changes === 1;
    },

    reapLapsed(lapseMs: number, message: string, reaper?: string): string[] {
      const now = clock();
      return immediate(() => {
        const dead = db
          .select({ id: nodes.id })
          .from(nodes)
          .where(lapsedNodesWhere(nodes, now, lapseMs, reaper))
          .all()
          .map((n) => n.id);
        if (dead.length === 0) return dead;
        db.delete(nodes).where(inArray(nodes.id, dead)).run();
        claims.releaseClaimsOf(dead, message);
        return dead;
      });
    },

    list(): NodeRow[] {
      return db.select().from(nodes).orderBy(nodes.startedAt, nodes.id).all();
    },

    unregister(id: string, message: string): void {
      immediate(() => {
        db.delete(nodes).where(eq(nodes.id, id)).run();
        claims.releaseClaimsOf([id], message);
      });
    },
  };
}
