import { and, desc, eq, gt, gte, inArray, sql, type SQL } from 'drizzle-orm';
import { olderThan } from './newest-first.ts';
import type { Db } from '../connection.ts';
import { TASK_STATUSES, tasks, type TaskStatus } from '../schema/index.ts';
import type { TaskRow } from './task-rows.ts';

/** What an operator filters the task list by. Expired tasks (past their TTL) are never listed. */
export interface TaskListFilter {
  statuses?: TaskStatus[];
  kind?: string;
  /** Created at or after this instant (epoch ms). */
  createdSince?: number;
  /** Only tasks held for this party's decision (`operator`). */
  awaiting?: string;
}

/** Position after the last row of a page: newest first, so (createdAt, id) descending. */
export interface TaskListCursor {
  createdAt: number;
  id: string;
}

export function taskListQueries(db: Db, clock: () => number) {
  const where = (filter: TaskListFilter, now: number): SQL[] => [
    gt(tasks.expiresAt, now),
    ...(filter.statuses?.length ? [inArray(tasks.status, filter.statuses)] : []),
    ...(filter.kind ? [eq(tasks.kind, filter.kind)] : []),
    ...(filter.createdSince !== undefined ? [gte(tasks.createdAt, filter.createdSince)] : []),
    ...(filter.awaiting ? [eq(tasks.status, 'working'), eq(tasks.heldFor, filter.awaiting)] : []),
  ];

  return {
    /** One page of tasks, newest first; `limit + 1` rows are read so the caller knows if more follow. */
    page(filter: TaskListFilter, limit: number, after?: TaskListCursor): { rows: TaskRow[]; more: boolean } {
      const now = clock();
      const before = after ? olderThan(tasks, after) : undefined;
      const rows = db
        .select()
        .from(tasks)
        .where(and(...where(filter, now), before))
        .orderBy(desc(tasks.createdAt), desc(tasks.id))
        .limit(limit + 1)
        .all();
      return { rows: rows.slice(0, limit), more: rows.length > limit };
    },

    /** Live tasks per status under the same filter (the status filter aside): every status present, zeros included. */
    /** Live tasks with this dedupe key (same kind and input, any owner) in one of `statuses`. */
    countLiveByDedupeKey(dedupeKey: string, statuses: TaskStatus[]): number {
      const now = clock();
      return db
        .select({ n: sql<number>`count(*)` })
        .from(tasks)
        .where(and(gt(tasks.expiresAt, now), eq(tasks.dedupeKey, dedupeKey), inArray(tasks.status, statuses)))
        .get()!.n;
    },

    /** Live tasks held for `awaiting`'s decision under the same filter (statuses aside). */
    countAwaiting(filter: Omit<TaskListFilter, 'statuses' | 'awaiting'>, awaiting: string): number {
      const now = clock();
      return db
        .select({ n: sql<number>`count(*)` })
        .from(tasks)
        .where(and(...where({ ...filter, awaiting }, now)))
        .get()!.n;
    },

    countsByStatus(filter: Omit<TaskListFilter, 'statuses'>): Record<TaskStatus, number> {
      const now = clock();
      const counts = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
      const rows = db
        .select({ status: tasks.status, n: sql<number>`count(*)` })
        .from(tasks)
        .where(and(...where(filter, now)))
        .groupBy(tasks.status)
        .all();
      for (const row of rows) counts[row.status] = row.n;
      return counts;
    },
  };
}

export type TaskListQueries = ReturnType<typeof taskListQueries>;
