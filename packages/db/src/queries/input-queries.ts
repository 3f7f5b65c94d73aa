import { eq } from 'drizzle-orm';
import { answeredEvent, nextRound, parkedEvent, takeAnswers } from './input-answers.ts';
import type { Db } from '../connection.ts';
import { answerSet, fencedBy, parkSet, waitingWhere } from '../lifecycle/task-transitions.ts';
import { taskInputs, tasks, type PendingInput } from '../schema/index.ts';
import { StaleAttemptError, type AttemptFence } from './task-rows.ts';
import { applyTransition } from './task-transition.ts';

export type TaskInputRow = typeof taskInputs.$inferSelect;
export type { PendingInput };

/** What a delivery of answers did: how many keys it matched, and whether the task may run again. */
export interface AnswerOutcome {
  accepted: number;
  resumed: boolean;
}

/**
 * The input_required half of the task lifecycle: a running attempt parks its task with questions
 * (releasing its lease, so nothing runs while a person thinks), answers arrive by key, and the last
 * answer puts the task back in the queue. Every step is one transaction.
 */
export function inputQueries(db: Db, clock: () => number) {
  return {
    /**
     * Parks a running attempt's task with a new round of questions (input-answers.ts). The parking
     * attempt did its work, so it gives back the attempt it used.
     */
    park(
      fence: AttemptFence,
      park: { requests: Record<string, unknown>; state: unknown; message: string; awaiting?: string },
    ): Record<string, PendingInput> {
      const now = clock();
      return db.transaction(
        (tx) => {
          const previous = tx
            .select({ round: taskInputs.round })
            .from(taskInputs)
            .where(eq(taskInputs.taskId, fence.taskId))
            .get();
          const { round, pending } = nextRound(previous?.round, park.requests);
          // Park (for the requester) or hold (for `awaiting`, an operator): lifecycle/task-transitions.ts.
          const parked = applyTransition(
            tx,
            now,
            parkSet(tasks, park.message, now, park.awaiting),
            fencedBy(fence, tasks, now),
            parkedEvent(park.message, pending, park.awaiting),
          );
          if (parked.length !== 1) throw new StaleAttemptError(fence);
          const row = { round, pending, responses: {}, state: park.state ?? null, parkedAt: now };
          tx.insert(taskInputs)
            .values({ taskId: fence.taskId, ...row })
            .onConflictDoUpdate({ target: taskInputs.taskId, set: row })
            .run();
          return pending;
        },
        { behavior: 'immediate' },
      );
    },

    get(taskId: string): TaskInputRow | undefined {
      return db.select().from(taskInputs).where(eq(taskInputs.taskId, taskId)).get();
    },

    /**
     * Records answers for pending keys of a task in `input_required`; unknown and already-answered
     * keys are ignored. When nothing is left pending the task returns to the queue as `working`.
     * `awaiting` answers a task held for that party instead (and only such a task).
     */
    answer(taskId: string, answers: Record<string, unknown>, by: string, awaiting?: string): AnswerOutcome {
      const now = clock();
      return db.transaction(
        (tx) => {
          const task = tx
            .select({ status: tasks.status, attempt: tasks.attempt })
            .from(tasks)
            .where(waitingWhere(taskId, tasks, now, awaiting))
            .get();
          const inputs = tx.select().from(taskInputs).where(eq(taskInputs.taskId, taskId)).get();
          if (!task || !inputs) return { accepted: 0, resumed: false };
          const { pending, responses, accepted, resumed, message } = takeAnswers(inputs, answers);
          if (accepted === 0) return { accepted, resumed: false };
          tx.update(taskInputs).set({ pending, responses }).where(eq(taskInputs.taskId, taskId)).run();
          applyTransition(
            tx,
            now,
            answerSet(now, resumed, message),
            waitingWhere(taskId, tasks, now, awaiting),
            answeredEvent(message, by, accepted, awaiting),
          );
          return { accepted, resumed };
        },
        { behavior: 'immediate' },
      );
    },
  };
}

export type InputQueries = ReturnType<typeof inputQueries>;
