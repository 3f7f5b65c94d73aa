import { index, integer, json, pgTable, text } from 'drizzle-orm/pg-core';
import { epochMs } from './epoch-ms.ts';
import { tasks } from './tasks.ts';

export const taskEvents = pgTable(
  'task_events',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    at: epochMs('at').notNull(),
    attempt: integer('attempt').notNull(),
    kind: text('kind').notNull(),
    message: text('message').notNull(),
    data: json('data').$type<unknown>(),
  },
  (t) => [index('task_events_task').on(t.taskId, t.id)],
);
