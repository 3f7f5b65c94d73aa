import { asc, eq } from 'drizzle-orm';
import type { Db } from '../connection.ts';
import { reflowMoves, reflowUnresolved } from '../schema/index.ts';

export type MoveAuditRow = typeof reflowMoves.$inferSelect;
export type UnresolvedAuditRow = typeof reflowUnresolved.$inferSelect;

export function auditQueries(db: Db) {
  return {
    recordMove(row: typeof reflowMoves.$inferInsert): void {
      db.insert(reflowMoves).values(row).run();
    },
    recordUnresolved(row: typeof reflowUnresolved.$inferInsert): void {
      db.insert(reflowUnresolved).values(row).run();
    },
    movesOf(taskId: string): MoveAuditRow[] {
      return db.select().from(reflowMoves).where(eq(reflowMoves.taskId, taskId)).orderBy(asc(reflowMoves.id)).all();
    },
    unresolvedOf(taskId: string): UnresolvedAuditRow[] {
      return db.select().from(reflowUnresolved).where(eq(reflowUnresolved.taskId, taskId)).orderBy(asc(reflowUnresolved.id)).all();
    },
  };
}

export type AuditQueries = ReturnType<typeof auditQueries>;
