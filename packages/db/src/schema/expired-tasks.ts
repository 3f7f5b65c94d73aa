import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

// A tombstone per task the TTL sweeper deleted: only id, owner and when, so tasks/get can tell its
// owner "Task has expired" rather than "Task not found". Tombstones are swept in turn after a while.
export const expiredTasks = sqliteTable(
  'expired_tasks',
  {
    id: text('id').primaryKey(),
    owner: text('owner').notNull(),
    expiredAt: integer('expired_at').notNull(),
  },
  (t) => [index('expired_tasks_at').on(t.expiredAt)],
);
