import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const TASK_STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const tasks = sqliteTable(
  'tasks',
  {
    id: text('id').primaryKey(),
    owner: text('owner').notNull(),
    kind: text('kind').notNull(),
    input: text('input', { mode: 'json' }).$type<unknown>().notNull(),
    /** Same owner + kind + input while working => the same task (see docs/architecture.md, "A task's path", step 4). */
    dedupeKey: text('dedupe_key').notNull(),
    status: text('status', { enum: TASK_STATUSES }).notNull(),
    statusMessage: text('status_message'),
    /** The final payload (for MCP: the CallToolResult), kept as text so a poll never re-serialises it. */
    result: text('result'),
    error: text('error', { mode: 'json' }).$type<{ code: number; message: string; data?: unknown }>(),
    createdAt: integer('created_at').notNull(),
    lastUpdatedAt: integer('last_updated_at').notNull(),
    ttlMs: integer('ttl_ms').notNull(),
    expiresAt: integer('expires_at').notNull(),
    pollIntervalMs: integer('poll_interval_ms').notNull(),
    attempt: integer('attempt').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull(),
    claimedBy: text('claimed_by'),
    leaseExpiresAt: integer('lease_expires_at'),
    startedAt: integer('started_at'),
    finishedAt: integer('finished_at'),
    /**
     * Exclusive scope: two tasks with the same key whose [start, end) ranges overlap never run at
     * once; the later one stays queued until the earlier one has finished (docs/architecture.md, "Exclusive scopes").
     */
    scopeKey: text('scope_key'),
    scopeStart: integer('scope_start'),
    scopeEnd: integer('scope_end'),
  },
  (t) => [
    index('tasks_queue').on(t.status, t.claimedBy, t.createdAt),
    index('tasks_expiry').on(t.expiresAt),
    index('tasks_owner_dedupe').on(t.owner, t.dedupeKey, t.status),
    index('tasks_scope').on(t.scopeKey, t.status),
  ],
);
