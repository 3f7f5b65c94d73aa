import { index, integer, json, pgTable, text } from 'drizzle-orm/pg-core';
import { TASK_STATUSES } from '../../schema/tasks.ts';
import { epochMs } from './epoch-ms.ts';

// The same columns as schema/tasks.ts, so a row reads the same from either store.
export const tasks = pgTable(
  'tasks',
  {
    id: text('id').primaryKey(),
    owner: text('owner').notNull(),
    kind: text('kind').notNull(),
    input: json('input').$type<unknown>().notNull(),
    dedupeKey: text('dedupe_key').notNull(),
    status: text('status', { enum: TASK_STATUSES }).notNull(),
    statusMessage: text('status_message'),
    /** The final payload, kept as text so a poll serves it as written. */
    result: text('result'),
    error: json('error').$type<{ code: number; message: string; data?: unknown }>(),
    createdAt: epochMs('created_at').notNull(),
    lastUpdatedAt: epochMs('last_updated_at').notNull(),
    ttlMs: epochMs('ttl_ms').notNull(),
    expiresAt: epochMs('expires_at').notNull(),
    pollIntervalMs: integer('poll_interval_ms').notNull(),
    attempt: integer('attempt').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull(),
    claimedBy: text('claimed_by'),
    leaseExpiresAt: epochMs('lease_expires_at'),
    startedAt: epochMs('started_at'),
    finishedAt: epochMs('finished_at'),
    scopeKey: text('scope_key'),
    scopeStart: epochMs('scope_start'),
    scopeEnd: epochMs('scope_end'),
  },
  (t) => [
    index('tasks_queue').on(t.status, t.claimedBy, t.createdAt),
    index('tasks_expiry').on(t.expiresAt),
    index('tasks_owner_dedupe').on(t.owner, t.dedupeKey, t.status),
    index('tasks_scope').on(t.scopeKey, t.status),
  ],
);
