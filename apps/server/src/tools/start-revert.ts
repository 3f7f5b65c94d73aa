import type { TaskRow } from '@reflow/db';
import { REFLOW_KIND, REVERT_KIND, type ReflowInput, type ReflowResult, type RevertInput } from '@reflow/reflow';
import { dedupeKey } from '@reflow/tasks';
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
export async function startRevert(services: Services, reflowTaskId: string, caller: Principal): Promise<TaskRow> {
  const { engine } = services;
  const row = await engine.get(reflowTaskId);
  if (!row || (row.owner !== caller.id && caller.role !== 'operator'))
    throw new RevertRefused('RFL_UNKNOWN_TASK', `No task ${reflowTaskId} (unknown or past its time-to-live)`, 404);
  const result =
    row.kind === REFLOW_KIND && row.status === 'completed' && row.result
      ? (JSON.parse(row.result).structuredContent as ReflowResult | undefined)
      : undefined;
  if (!result?.applied)
    throw new RevertRefused(
      'RFL_NOT_REVERTIBLE',
      `Task ${reflowTaskId} is not a completed reflow that applied its moves (${row.kind === REFLOW_KIND ? (row.status === 'completed' ? 'a dry run, or rejected' : `it is ${row.status}`) : `it is a ${row.kind}`}); there is nothing to put back`,
      409,
    );
  const input: RevertInput = { reflowTaskId, reflow: row.input as ReflowInput };
  const key = dedupeKey(REVERT_KIND, input);
  const { task } = await engine.create({
    owner: caller.id,
    kind: REVERT_KIND,
    input,
    admit: async (tx) => {
      if ((await tx.taskList.countLiveByDedupeKey(key, ['working', 'input_required', 'completed'])) > 0)
        throw new RevertRefused(
          'RFL_ALREADY_REVERTED',
          `Reflow ${reflowTaskId} has already been reverted (or is being reverted)`,
          409,
        );
    },
  });
  return task;
}
