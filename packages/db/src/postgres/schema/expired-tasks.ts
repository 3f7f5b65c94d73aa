import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { epochMs } from './epoch-ms.ts';

// A tombstone per task the TTL sweeper deleted (see schema/expired-tasks.ts).
export const expiredTasks = pgTable(
  'expired_tasks',
  {
    id: text('id').primaryKey(),
    owner: text('owner').notNull(),
    expiredAt: epochMs('expired_at').notNull(),
  },
  (t) => [index('expired_tasks_at').on(t.expiredAt)],
);
