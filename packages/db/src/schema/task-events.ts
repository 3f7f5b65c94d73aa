import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { tasks } from './tasks.ts';

// Progress history of a task: one row per state change or progress message.
export const taskEvents = sqliteTable(
  'task_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    at: integer('at').notNull(),
    attempt: integer('attempt').notNull(),
    kind: text('kind').notNull(),
    message: text('message').notNull(),
    data: text('data', { mode: 'json' }).$type<unknown>(),
  },
  (t) => [index('task_events_task').on(t.taskId, t.id)],
);
