// The reflow audit (as queries/audit-queries.ts).
import { asc, eq } from 'drizzle-orm';
import type { AuditStore } from '../../store.ts';
import type { PgDb } from '../pg-db.ts';
import { reflowMoves, reflowUnresolved } from '../schema/index.ts';

export function auditQueries(db: PgDb): AuditStore {
  return {
    recordMove: async (row) => {
      await db.insert(reflowMoves).values(row);
    },
    recordUnresolved: async (row) => {
      await db.insert(reflowUnresolved).values(row);
    },
    movesOf: (taskId) =>
      db.select().from(reflowMoves).where(eq(reflowMoves.taskId, taskId)).orderBy(asc(reflowMoves.id)),
    unresolvedOf: (taskId) =>
      db.select().from(reflowUnresolved).where(eq(reflowUnresolved.taskId, taskId)).orderBy(asc(reflowUnresolved.id)),
  };
}
