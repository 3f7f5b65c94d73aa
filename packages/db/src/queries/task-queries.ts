// Every query on tasks, as one object: records, the claim queue, and state changes.
import type { Db } from '../connection.ts';
import { taskClaimQueries } from './task-claim-queries.ts';
import { taskPollQueries } from './task-poll-queries.ts';
import { taskRecordQueries } from './task-record-queries.ts';
import { taskStateQueries } from './task-state-queries.ts';
import type { SendSignal } from './task-transition.ts';

export * from './task-rows.ts';
export type { TaskPollRow } from './task-poll-queries.ts';

export function taskQueries(db: Db, clock: () => number, signal: SendSignal) {
  return {
    ...taskRecordQueries(db, clock),
    ...taskPollQueries(db, clock),
    ...taskClaimQueries(db, clock, signal),
    ...taskStateQueries(db, clock),
  };
}

export type TaskQueries = ReturnType<typeof taskQueries>;
