import { integer, json, pgTable, text } from 'drizzle-orm/pg-core';
import type { PendingInput } from '../../schema/task-inputs.ts';
import { epochMs } from './epoch-ms.ts';
import { tasks } from './tasks.ts';

export const taskInputs = pgTable('task_inputs', {
  taskId: text('task_id')
    .primaryKey()
    .references(() => tasks.id, { onDelete: 'cascade' }),
  round: integer('round').notNull(),
  pending: json('pending').$type<Record<string, PendingInput>>().notNull(),
  responses: json('responses').$type<Record<string, unknown>>().notNull(),
  state: json('state').$type<unknown>(),
  parkedAt: epochMs('parked_at').notNull(),
});
