import { index, integer, json, pgTable, text } from 'drizzle-orm/pg-core';
import { BARE_COLUMNS, leasedRows, queuedRows, scopeHolderRows, TASK_STATUSES } from '../../lifecycle/task-states.ts';
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
    /** Who a held task waits on (`operator`): no worker's claim and no lease, its scope still held (lifecycle/task-states.ts). */
    heldFor: text('held_for'),
    leaseExpiresAt: epochMs('lease_expires_at'),
    startedAt: epochMs('started_at'),
    finishedAt: epochMs('finished_at'),
    scopeKey: text('scope_key'),
    scopeStart: epochMs('scope_start'),
    scopeEnd: epochMs('scope_end'),
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
