// The input_required half of the lifecycle (as queries/input-queries.ts): park, read, answer.
import { eq } from 'drizzle-orm';
import { answeredEvent, nextRound, parkedEvent, takeAnswers } from '../../queries/input-answers.ts';
import { answerSet, parkSet, waitingWhere } from '../../lifecycle/task-transitions.ts';
import { StaleAttemptError } from '../../queries/task-rows.ts';
import type { InputStore } from '../../store.ts';
import { NOW_MS, type PgDb } from '../pg-db.ts';
import { taskInputs, tasks } from '../schema/index.ts';
import { first } from './task-sql.ts';
import { applyTransition } from './task-transition.ts';
import { fencedOnceLocked } from './lease-edge.ts';

export function inputQueries(db: PgDb): InputStore {
  return {
    /**
     * Park (for the requester) or hold (for `awaiting`, an operator): lifecycle/task-transitions.ts.
     * Only the attempt that owns the task parks it, so the round read first is this task's latest.
     */
    park: (fence, park) =>
      db.transaction(async (tx) => {
        const previous = first(
          await tx.select({ round: taskInputs.round }).from(taskInputs).where(eq(taskInputs.taskId, fence.taskId)),
        );
        const { round, pending } = nextRound(previous?.round, park.requests);
        const parked = await applyTransition(
          tx,
          parkSet(tasks, park.message, NOW_MS, park.awaiting),
          // Judged once it has the row (lease-edge.ts): a park that waited past its lease is refused.
          fencedOnceLocked(fence),
          parkedEvent(park.message, pending, park.awaiting),
        );
        if (parked.length !== 1) throw new StaleAttemptError(fence);
        const row = { round, pending, responses: {}, state: park.state ?? null, parkedAt: parked[0].at };
        await tx
          .insert(taskInputs)
          .values({ taskId: fence.taskId, ...row })
          .onConflictDoUpdate({ target: taskInputs.taskId, set: row });
        return pending;
      }),

    get: async (taskId) => {
      const [row] = await db.select().from(taskInputs).where(eq(taskInputs.taskId, taskId));
      return row;
    },

    /** The task row is read FOR UPDATE: two answers to one task (on two nodes) take turns. */
    answer: (taskId, answers, by, awaiting) =>
      db.transaction(async (tx) => {
        const task = first(
          await tx
            .select({ status: tasks.status, attempt: tasks.attempt })
            .from(tasks)
            .where(waitingWhere(taskId, tasks, NOW_MS, awaiting))
            .for('update'),
        );
        const inputs = first(await tx.select().from(taskInputs).where(eq(taskInputs.taskId, taskId)));
        if (!task || !inputs) return { accepted: 0, resumed: false };
        const { pending, responses, accepted, resumed, message } = takeAnswers(inputs, answers);
        if (accepted === 0) return { accepted, resumed: false };
        await tx.update(taskInputs).set({ pending, responses }).where(eq(taskInputs.taskId, taskId));
        await applyTransition(
          tx,
          answerSet(NOW_MS, resumed, message),
          waitingWhere(taskId, tasks, NOW_MS, awaiting),
          answeredEvent(message, by, accepted, awaiting),
          resumed ? 'answered' : undefined,
        );
        return { accepted, resumed };
      }),
  };
}
