import type { TaskRow } from '@reflow/db';
import {
  readAppliedVersions,
  REFLOW_KIND,
  REVERT_KIND,
  type ReflowInput,
  type ReflowResult,
  type RevertInput,
} from '@reflow/reflow';
import { dedupeKey } from '@reflow/tasks';
import type { CreationLimits } from '../auth/creation-limits.ts';
import type { Principal } from '../auth/token-table.ts';
import type { Services } from '../services.ts';

/** Why a revert was refused: `status` for the API, `code` stable for programs. Nothing was changed. */
export class RevertRefused extends Error {
  constructor(
    readonly code: 'RFL_UNKNOWN_TASK' | 'RFL_NOT_REVERTIBLE' | 'RFL_ALREADY_REVERTED',
    message: string,
    readonly statusCode: 404 | 409,
  ) {
    super(message);
  }
}

/**
 * Starts the revert of a completed reflow that applied its moves, for its owner or an operator.
 * A reflow is reverted once: a second request while the first revert is live (working or
 * completed) is refused, checked in the transaction that would create it.
 */
export async function startRevert(
  services: Services,
  reflowTaskId: string,
  caller: Principal,
  limits?: CreationLimits,
): Promise<TaskRow> {
  const { engine } = services;
  const row = await engine.get(reflowTaskId);
  if (!row || (row.owner !== caller.id && caller.role !== 'operator'))
    throw new RevertRefused('RFL_UNKNOWN_TASK', `No task ${reflowTaskId} (unknown or past its time-to-live)`, 404);
  const stored =
    row.kind === REFLOW_KIND && row.status === 'completed' && row.result
      ? (JSON.parse(row.result) as { structuredContent?: ReflowResult; _meta?: Record<string, unknown> })
      : undefined;
  const result = stored?.structuredContent;
  if (!result?.applied)
    throw new RevertRefused(
      'RFL_NOT_REVERTIBLE',
      `Task ${reflowTaskId} is not a completed reflow that applied its moves (${row.kind === REFLOW_KIND ? (row.status === 'completed' ? 'a dry run, or rejected' : `it is ${row.status}`) : `it is a ${row.kind}`}); there is nothing to put back`,
      409,
    );
  const applied = stored && readAppliedVersions(stored);
  const input: RevertInput = { reflowTaskId, reflow: row.input as ReflowInput, ...(applied ? { applied } : {}) };
  // One approval policy for every tool that moves bookings: a client's revert waits like its reflow.
  const waits = services.approval === 'operator' && caller.role === 'client';
  const asked: RevertInput = waits ? { ...input, operatorApproval: true } : input;
  // Either form of this revert (waiting for an operator or not) is the same work: one dedupe key, so
  // an owner's and an operator's revert of one reflow take turns on its lock, across nodes too, and
  // the later one counts the earlier. The waiting form's own key is counted too: reverts created
  // before the forms shared one carry it.
  const keys = [dedupeKey(REVERT_KIND, input), dedupeKey(REVERT_KIND, { ...input, operatorApproval: true })];
  const { task } = await engine.create({
    owner: caller.id,
    kind: REVERT_KIND,
    input: asked,
    sameWorkAs: input,
    admit: async (tx) => {
      for (const key of keys)
        if ((await tx.taskList.countLiveByDedupeKey(key, ['working', 'input_required', 'completed'])) > 0)
          throw new RevertRefused(
            'RFL_ALREADY_REVERTED',
            `Reflow ${reflowTaskId} has already been reverted (or is being reverted)`,
            409,
          );
      // A revert is new work like a reflow: the same per-principal creation limits.
      await limits?.admit(tx, caller);
    },
  });
  return task;
}
