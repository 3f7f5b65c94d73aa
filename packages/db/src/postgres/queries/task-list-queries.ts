// What an operator's list shows: pages and counts under a filter (as queries/task-list-queries.ts).
import { and, desc, eq, gte, inArray, type SQL } from 'drizzle-orm';
import { olderThan } from '../../queries/newest-first.ts';
import type { TaskListFilter } from '../../queries/task-list-queries.ts';
import { TASK_STATUSES, type TaskStatus } from '../../lifecycle/task-states.ts';
import type { TaskListStore } from '../../store.ts';
import type { PgDb } from '../pg-db.ts';
import { tasks } from '../schema/index.ts';
import { countAll, live } from './task-sql.ts';

export function taskListQueries(db: PgDb): TaskListStore {
  const where = (filter: TaskListFilter): SQL[] => [
    live(),
    ...(filter.statuses?.length ? [inArray(tasks.status, filter.statuses)] : []),
    ...(filter.kind ? [eq(tasks.kind, filter.kind)] : []),
    ...(filter.createdSince !== undefined ? [gte(tasks.createdAt, filter.createdSince)] : []),
    ...(filter.awaiting ? [eq(tasks.status, 'working'), eq(tasks.heldFor, filter.awaiting)] : []),
  ];
  return {
    page: async (filter, limit, after) => {
      const before = after ? olderThan(tasks, after) : undefined;
      const rows = await db
        .select()
        .from(tasks)
        .where(and(...where(filter), before))
        .orderBy(desc(tasks.createdAt), desc(tasks.id))
        .limit(limit + 1);
      return { rows: rows.slice(0, limit), more: rows.length > limit };
    },

    countLiveByDedupeKey: async (dedupeKey, statuses) =>
      (
        await db
          .select({ n: countAll })
          .from(tasks)
          .where(and(live(), eq(tasks.dedupeKey, dedupeKey), inArray(tasks.status, statuses)))
      )[0].n,

    countAwaiting: async (filter, awaiting) =>
      (
        await db
          .select({ n: countAll })
          .from(tasks)
          .where(and(...where({ ...filter, awaiting })))
      )[0].n,

    countsByStatus: async (filter) => {
      const counts = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
      const rows = await db
        .select({ status: tasks.status, n: countAll })
        .from(tasks)
        .where(and(...where(filter)))
        .groupBy(tasks.status);
      for (const row of rows) counts[row.status] = row.n;
      return counts;
    },
  };
}
