// The input_required half of the lifecycle (as queries/input-queries.ts): park, read, answer.
import { and, eq, sql } from 'drizzle-orm';
import { heldClaim } from '../../queries/input-queries.ts';
import { StaleAttemptError } from '../../queries/task-rows.ts';
import type { InputStore } from '../../store.ts';
import { NOW_MS, type PgDb } from '../pg-db.ts';
import { taskEvents, taskInputs, tasks } from '../schema/index.ts';
import { fenced, live, notify, first } from './task-sql.ts';

export function inputQueries(db: PgDb): InputStore {
  return {
    /** The fenced UPDATE comes first: it locks the task row, so the round read after it is this task's latest. */
    park: (fence, park) =>
      db.transaction(async (tx) => {
        const rows = await tx
          .update(tasks)
          .set({
            status: park.awaiting ? 'working' : 'input_required',
            statusMessage: park.message,
            lastUpdatedAt: NOW_MS,
            claimedBy: park.awaiting ? heldClaim(park.awaiting) : null,
            leaseExpiresAt: null,
            maxAttempts: sql`${tasks.maxAttempts} + 1`,
          })
          .where(fenced(fence))
          .returning({ at: tasks.lastUpdatedAt });
        if (rows.length !== 1) throw new StaleAttemptError(fence);
        const now = rows[0].at;
        const previous = first(
          await tx.select({ round: taskInputs.round }).from(taskInputs).where(eq(taskInputs.taskId, fence.taskId)),
        );
        const round = (previous?.round ?? 0) + 1;
        const pending = Object.fromEntries(
          Object.entries(park.requests).map(([name, request]) => [`r${round}-${name}`, { name, request }]),
        );
        const row = { round, pending, responses: {}, state: park.state ?? null, parkedAt: now };
        await tx
          .insert(taskInputs)
          .values({ taskId: fence.taskId, ...row })
          .onConflictDoUpdate({ target: taskInputs.taskId, set: row });
        await tx.insert(taskEvents).values({
          taskId: fence.taskId,
          at: now,
          attempt: fence.attempt,
          kind: 'input_required',
          message: park.message,
          data: { keys: Object.keys(pending), ...(park.awaiting ? { awaiting: park.awaiting } : {}) },
        });
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
            .select({ status: tasks.status, attempt: tasks.attempt, claimedBy: tasks.claimedBy })
            .from(tasks)
            .where(and(eq(tasks.id, taskId), live()))
            .for('update'),
        );
        const inputs = first(await tx.select().from(taskInputs).where(eq(taskInputs.taskId, taskId)));
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
        await tx.update(taskInputs).set({ pending, responses }).where(eq(taskInputs.taskId, taskId));
        const resumed = Object.keys(pending).length === 0;
        const message = resumed
          ? 'Answer received; resuming'
          : `Answer received; ${Object.keys(pending).length} more awaited`;
        await tx
          .update(tasks)
          .set({
            lastUpdatedAt: NOW_MS,
            ...(resumed ? { status: 'working' as const, statusMessage: message, claimedBy: null } : {}),
          })
          .where(and(eq(tasks.id, taskId), eq(tasks.status, task.status), eq(tasks.attempt, task.attempt)));
        await tx.insert(taskEvents).values({
          taskId,
          at: NOW_MS,
          attempt: task.attempt,
          kind: 'input_received',
          message,
          data: { by, keys: accepted, ...(awaiting ? { awaiting } : {}) },
        });
        if (resumed) await notify(tx, 'answered', taskId);
        return { accepted, resumed };
      }),
  };
}
