import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { tasks } from './tasks.ts';

/** One question a parked task waits on: the handler's own name for it and the request to show the client. */
export interface PendingInput {
  name: string;
  request: unknown;
}

// What a task parked in `input_required` waits for, and what it keeps meanwhile. One row per task,
// rewritten each time the task parks again; it lives as long as the task (cascade).
export const taskInputs = sqliteTable('task_inputs', {
  taskId: text('task_id')
    .primaryKey()
    .references(() => tasks.id, { onDelete: 'cascade' }),
  /** Which time the task parked (1, 2, …): part of every key, so keys are unique over the task's life. */
  round: integer('round').notNull(),
  /** Unanswered requests by wire key. */
  pending: text('pending', { mode: 'json' }).$type<Record<string, PendingInput>>().notNull(),
  /** Answers received this round, by the handler's name for the question. */
  responses: text('responses', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  /** The handler's work so far (e.g. a solved plan), handed back when the task resumes. */
  state: text('state', { mode: 'json' }).$type<unknown>(),
  parkedAt: integer('parked_at').notNull(),
});
