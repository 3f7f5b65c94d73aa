// The task row types and the fence every write of a running attempt is checked against.
import { liveRows } from '../lifecycle/task-states.ts';
import { taskEvents, tasks } from '../schema/index.ts';

export type TaskRow = typeof tasks.$inferSelect;
export type NewTaskRow = typeof tasks.$inferInsert;
export type TaskEventRow = typeof taskEvents.$inferSelect;
export type TaskError = NonNullable<TaskRow['error']>;

/** The fence every write of a running attempt carries: this attempt, this claimant, still working, still live. */
export interface AttemptFence {
  taskId: string;
  attempt: number;
  claimedBy: string;
}

/** `tasks` rows live at `now` (lifecycle's liveRows on this dialect's table). */
export const live = (now: number) => liveRows(tasks, now);
/** How long a tombstone of an expired task is kept, so its owner hears "expired" rather than "not found". */
export const TOMBSTONE_RETENTION_MS = 7 * 86_400_000;
export class StaleAttemptError extends Error {
  constructor(readonly fence: AttemptFence) {
    super(`Task ${fence.taskId} attempt ${fence.attempt} no longer holds its claim; its write was discarded`);
    this.name = 'StaleAttemptError';
  }
}
