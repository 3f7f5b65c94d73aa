// The read every poll of a task makes: its hottest query, so a statement prepared once that reads
// only what a poll shows, as arrays (no per-row object from the driver, no JSON of the input).
import type { Db } from '../connection.ts';
import type { TaskRow } from './task-rows.ts';

/** What a poll needs of a task: its state and timings, never its input. */
export const POLL_COLUMNS = [
  'id',
  'owner',
  'kind',
  'status',
  'statusMessage',
  'result',
  'error',
  'createdAt',
  'lastUpdatedAt',
  'ttlMs',
  'expiresAt',
  'pollIntervalMs',
  'claimedBy',
  'heldFor',
  'leaseExpiresAt',
  'startedAt',
] as const satisfies (keyof TaskRow)[];
export type TaskPollColumn = (typeof POLL_COLUMNS)[number];
export type TaskPollRow = Pick<TaskRow, TaskPollColumn>;

const COLUMNS =
  'id, owner, kind, status, status_message, result, error, created_at, last_updated_at, ttl_ms, expires_at, poll_interval_ms, claimed_by, held_for, lease_expires_at, started_at';

type Cells = [
  string,
  string,
  string,
  TaskRow['status'],
  string | null,
  string | null,
  string | null,
  number,
  number,
  number,
  number,
  number,
  string | null,
  string | null,
  number | null,
  number | null,
];

export function taskPollQueries(db: Db, clock: () => number) {
  const byId = db.$client.prepare<[string], Cells>(`SELECT ${COLUMNS} FROM tasks WHERE id = ?`).raw(true);
  return {
    poll(id: string): TaskPollRow | undefined {
      const c = byId.get(id);
      // Live only: a task past its TTL is gone for its poller, swept or not.
      if (!c || c[10] <= clock()) return undefined;
      return {
        id: c[0],
        owner: c[1],
        kind: c[2],
        status: c[3],
        statusMessage: c[4],
        result: c[5],
        error: c[6] === null ? null : (JSON.parse(c[6]) as TaskRow['error']),
        createdAt: c[7],
        lastUpdatedAt: c[8],
        ttlMs: c[9],
        expiresAt: c[10],
        pollIntervalMs: c[11],
        claimedBy: c[12],
        heldFor: c[13],
        leaseExpiresAt: c[14],
        startedAt: c[15],
      };
    },
  };
}
