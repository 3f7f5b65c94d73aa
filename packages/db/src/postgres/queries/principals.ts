// What the abuse limits need to know about one principal's tasks.
import { and, eq, inArray } from 'drizzle-orm';
import type { PrincipalStore } from '../../store.ts';
import type { PgDb } from '../pg-db.ts';
import { tasks } from '../schema/index.ts';
import { countAll, live } from './task-sql.ts';

export function principalQueries(db: PgDb): PrincipalStore {
  return {
    activeTaskCount: async (owner) =>
      (
        await db
          .select({ n: countAll })
          .from(tasks)
          .where(and(eq(tasks.owner, owner), inArray(tasks.status, ['working', 'input_required']), live()))
      )[0].n,
  };
}
