import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { BARE_COLUMNS, leasedRows, queuedRows, scopeHolderRows, TASK_STATUSES } from '../lifecycle/task-states.ts';

export { TASK_STATUSES, type TaskStatus } from '../lifecycle/task-states.ts';

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
    /** Who a held task waits on (`operator`): no worker's claim and no lease, its scope still held (lifecycle/task-states.ts). */
    heldFor: text('held_for'),
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
  // Partial indexes, each on the rows of one lifecycle state (lifecycle/task-states.ts): the queue in
  // the order it is claimed, leases by expiry, and the scope holders an overlap test probes, so none
  // of them grows with the finished tasks or the queued backlog.
  (t) => [
    index('tasks_queued').on(t.createdAt, t.id).where(queuedRows(BARE_COLUMNS)),
    index('tasks_leased').on(t.leaseExpiresAt).where(leasedRows(BARE_COLUMNS)),
    index('tasks_scope_holders').on(t.scopeKey, t.scopeStart).where(scopeHolderRows(BARE_COLUMNS)),
    index('tasks_expiry').on(t.expiresAt),
    index('tasks_owner_dedupe').on(t.owner, t.dedupeKey, t.status),
  ],
);
