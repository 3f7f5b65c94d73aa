import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

// The audit outlives the task row (which the TTL sweeper deletes), so task_id is not a foreign key.

export const reflowMoves = sqliteTable(
  'reflow_moves',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    taskId: text('task_id').notNull(),
    bookingId: text('booking_id').notNull(),
    fromRoom: text('from_room').notNull(),
    toRoom: text('to_room').notNull(),
    fromStart: integer('from_start').notNull(),
    toStart: integer('to_start').notNull(),
    shiftMinutes: integer('shift_minutes').notNull(),
    appliedAt: integer('applied_at').notNull(),
  },
  (t) => [index('reflow_moves_task').on(t.taskId), index('reflow_moves_booking').on(t.bookingId)],
);

export const reflowUnresolved = sqliteTable(
  'reflow_unresolved',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    taskId: text('task_id').notNull(),
    bookingId: text('booking_id').notNull(),
    code: text('code').notNull(),
    reason: text('reason').notNull(),
    recordedAt: integer('recorded_at').notNull(),
  },
  (t) => [index('reflow_unresolved_task').on(t.taskId), index('reflow_unresolved_booking').on(t.bookingId)],
);
