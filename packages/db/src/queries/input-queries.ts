import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../connection.ts';
import { taskEvents, taskInputs, tasks, type PendingInput } from '../schema/index.ts';
import { fenced, StaleAttemptError, type AttemptFence } from './task-rows.ts';

export type TaskInputRow = typeof taskInputs.$inferSelect;
export type { PendingInput };

/**
 * A task parked for someone other than its requester (an operator) keeps status `working` and holds
 * this claim instead of a worker's: no lease (a person has no heartbeat), so nothing claims or
 * reclaims it, while its scope stays held and its TTL runs. The requester just sees it working.
 */
export const HELD_CLAIM_PREFIX = 'awaiting:';
export const heldClaim = (awaiting: string) => `${HELD_CLAIM_PREFIX}${awaiting}`;
/** Who a task waits on when it is held (`operator`), else undefined. */
export const heldFor = (claimedBy: string | null): string | undefined =>
  claimedBy?.startsWith(HELD_CLAIM_PREFIX) ? claimedBy.slice(HELD_CLAIM_PREFIX.length) : undefined;

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
export function inputQueries(db: Db) {
  return {
    /**
     * Parks a running attempt's task. Keys are `r<round>-<name>`, so a key is never reused over the
     * task's life. The parking attempt did its work, so it gives back the attempt it used.
     */
    park(
      fence: AttemptFence,
      now: number,
      park: { requests: Record<string, unknown>; state: unknown; message: string; awaiting?: string },
    ): Record<string, PendingInput> {
      return db.transaction(
        (tx) => {
          const previous = tx
            .select({ round: taskInputs.round })
            .from(taskInputs)
            .where(eq(taskInputs.taskId, fence.taskId))
            .get();
          const round = (previous?.round ?? 0) + 1;
          const pending = Object.fromEntries(
            Object.entries(park.requests).map(([name, request]) => [`r${round}-${name}`, { name, request }]),
          );
          const changes = tx
            .update(tasks)
            .set({
              status: park.awaiting ? 'working' : 'input_required',
              statusMessage: park.message,
              lastUpdatedAt: now,
              claimedBy: park.awaiting ? heldClaim(park.awaiting) : null,
              leaseExpiresAt: null,
              maxAttempts: sql`${tasks.maxAttempts} + 1`,
            })
            .where(fenced(fence, now))
            .run().changes;
          if (changes !== 1) throw new StaleAttemptError(fence);
          const row = { round, pending, responses: {}, state: park.state ?? null, parkedAt: now };
          tx.insert(taskInputs)
            .values({ taskId: fence.taskId, ...row })
            .onConflictDoUpdate({ target: taskInputs.taskId, set: row })
            .run();
          tx.insert(taskEvents)
            .values({
              taskId: fence.taskId,
              at: now,
              attempt: fence.attempt,
              kind: 'input_required',
              message: park.message,
              data: { keys: Object.keys(pending), ...(park.awaiting ? { awaiting: park.awaiting } : {}) },
            })
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
    answer(
      taskId: string,
      now: number,
      answers: Record<string, unknown>,
      by: string,
      awaiting?: string,
    ): AnswerOutcome {
      return db.transaction(
        (tx) => {
          const task = tx
            .select({ status: tasks.status, attempt: tasks.attempt, claimedBy: tasks.claimedBy })
            .from(tasks)
            .where(and(eq(tasks.id, taskId), sql`${tasks.expiresAt} > ${now}`))
            .get();
          const inputs = tx.select().from(taskInputs).where(eq(taskInputs.taskId, taskId)).get();
          const waiting = awaiting
            ? task?.status === 'working' && task.claimedBy === heldClaim(awaiting)
            : task?.status === 'input_required';
          if (!task || !waiting || !inputs) return { accepted: 0, resumed: false };
          const pending = { ...inputs.pending };
          const responses = { ...inputs.responses };
          let accepted = 0;
          for (const [key, answer] of Object.entries(answers)) {
            if (!Object.hasOwn(pending, key)) continue;
            responses[pending[key].name] = answer;
            delete pending[key];
            accepted++;
          }
          if (accepted === 0) return { accepted, resumed: false };
          tx.update(taskInputs).set({ pending, responses }).where(eq(taskInputs.taskId, taskId)).run();
          const resumed = Object.keys(pending).length === 0;
          const message = resumed
            ? 'Answer received; resuming'
            : `Answer received; ${Object.keys(pending).length} more awaited`;
          tx.update(tasks)
            .set({
              lastUpdatedAt: now,
              ...(resumed ? { status: 'working' as const, statusMessage: message, claimedBy: null } : {}),
            })
            .where(and(eq(tasks.id, taskId), eq(tasks.status, task.status), eq(tasks.attempt, task.attempt)))
            .run();
          tx.insert(taskEvents)
            .values({
              taskId,
              at: now,
              attempt: task.attempt,
              kind: 'input_received',
              message,
              data: { by, keys: accepted, ...(awaiting ? { awaiting } : {}) },
            })
            .run();
          return { accepted, resumed };
        },
        { behavior: 'immediate' },
      );
    },
  };
}

export type InputQueries = ReturnType<typeof inputQueries>;
