import { index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { epochMs } from './epoch-ms.ts';

// The audit outlives the task row (which the TTL sweeper deletes), so task_id is not a foreign key.
export const reflowMoves = pgTable(
  'reflow_moves',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    taskId: text('task_id').notNull(),
    bookingId: text('booking_id').notNull(),
    fromRoom: text('from_room').notNull(),
    toRoom: text('to_room').notNull(),
    fromStart: epochMs('from_start').notNull(),
    toStart: epochMs('to_start').notNull(),
    shiftMinutes: integer('shift_minutes').notNull(),
    appliedAt: epochMs('applied_at').notNull(),
  },
  (t) => [index('reflow_moves_task').on(t.taskId), index('reflow_moves_booking').on(t.bookingId)],
);

export const reflowUnresolved = pgTable(
  'reflow_unresolved',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    taskId: text('task_id').notNull(),
    bookingId: text('booking_id').notNull(),
    code: text('code').notNull(),
    reason: text('reason').notNull(),
    recordedAt: epochMs('recorded_at').notNull(),
  },
  (t) => [index('reflow_unresolved_task').on(t.taskId), index('reflow_unresolved_booking').on(t.bookingId)],
);
