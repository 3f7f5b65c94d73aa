import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../connection.ts';
import { reflowMoves, reflowUnresolved } from '../schema/index.ts';

export type MoveAuditRow = typeof reflowMoves.$inferSelect;
export type UnresolvedAuditRow = typeof reflowUnresolved.$inferSelect;

export function auditQueries(db: Db) {
  // An apply writes one row per move and per unresolved booking: prepare the inserts once.
  const p = sql.placeholder;
  const insertMove = db
    .insert(reflowMoves)
    .values({
      taskId: p('taskId'),
      bookingId: p('bookingId'),
      fromRoom: p('fromRoom'),
      toRoom: p('toRoom'),
      fromStart: p('fromStart'),
      toStart: p('toStart'),
      shiftMinutes: p('shiftMinutes'),
      appliedAt: p('appliedAt'),
    })
    .prepare();
  const insertUnresolved = db
    .insert(reflowUnresolved)
    .values({
      taskId: p('taskId'),
      bookingId: p('bookingId'),
      code: p('code'),
      reason: p('reason'),
      recordedAt: p('recordedAt'),
    })
    .prepare();
  return {
    recordMove(row: Omit<typeof reflowMoves.$inferInsert, 'id'>): void {
      insertMove.run(row);
    },
    recordUnresolved(row: Omit<typeof reflowUnresolved.$inferInsert, 'id'>): void {
      insertUnresolved.run(row);
    },
    movesOf(taskId: string): MoveAuditRow[] {
      return db.select().from(reflowMoves).where(eq(reflowMoves.taskId, taskId)).orderBy(asc(reflowMoves.id)).all();
    },
    unresolvedOf(taskId: string): UnresolvedAuditRow[] {
      return db
        .select()
        .from(reflowUnresolved)
        .where(eq(reflowUnresolved.taskId, taskId))
        .orderBy(asc(reflowUnresolved.id))
        .all();
    },
  };
}

export type AuditQueries = ReturnType<typeof auditQueries>;
