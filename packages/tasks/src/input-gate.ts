import type { StoreQueries, TaskRow } from '@reflow/db';
import type { ResumedInput } from './types.ts';

/**
 * What an attempt resumes with after its task waited in input_required: the handler's kept state
 * and every answer, read from the database (so a restart in between loses nothing).
 */
export async function resumedInput(row: TaskRow, store: StoreQueries): Promise<ResumedInput | undefined> {
  const parked = await store.inputs.get(row.id);
  if (!parked || Object.keys(parked.pending).length > 0) return undefined;
  return { state: parked.state, responses: parked.responses };
}

/** The requests a task in input_required still waits on, by wire key (empty when it waits on none). */
export async function pendingRequests(
  row: Pick<TaskRow, 'id' | 'status'>,
  store: StoreQueries,
): Promise<Record<string, unknown>> {
  if (row.status !== 'input_required') return {};
  const parked = await store.inputs.get(row.id);
  return Object.fromEntries(Object.entries(parked?.pending ?? {}).map(([key, p]) => [key, p.request]));
}
