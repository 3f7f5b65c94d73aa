import type { TaskPollRow } from '@reflow/db';
import { pendingRequests } from './input-gate.ts';
import type { TaskEngine } from './task-engine.ts';
import { toTaskView } from './task-view.ts';

/**
 * The engine as a task store keyed by owner: another owner's task reads as no task at all.
 * `seesAll` (an operator) sees and cancels every task; the cancel records who asked.
 */
export class OwnedTaskStore {
  constructor(
    private readonly engine: TaskEngine,
    private readonly options: { seesAll?: boolean } = {},
  ) {}

  get(
    taskId: string,
    owner: string,
  ): (ReturnType<typeof toTaskView> & { inputRequests?: Record<string, unknown> }) | undefined {
    const row = this.engine.peek(taskId);
    if (!row || !this.#visibleTo(row, owner)) return undefined;
    const view = toTaskView(row, this.engine.pollIntervalFor(row));
    // A task waiting for input shows what it waits on (SEP-2663 inputRequests, by wire key).
    return row.status === 'input_required'
      ? { ...view, inputRequests: pendingRequests(row, this.engine.queries) }
      : view;
  }

  /** Delivers input responses; false when no such task is visible. Unmatched keys are ignored; the events record who answered. */
  update(taskId: string, owner: string, inputResponses: Record<string, unknown>): boolean {
    const row = this.engine.get(taskId);
    if (!row || !this.#visibleTo(row, owner)) return false;
    this.engine.answer(taskId, inputResponses, owner);
    return true;
  }

  /** True only for the owner of a task past its TTL: anyone else still hears "not found". */
  expired(taskId: string, owner: string): boolean {
    return this.engine.expired(taskId, owner);
  }

  cancel(taskId: string, owner: string): boolean {
    const row = this.engine.get(taskId);
    if (!row || !this.#visibleTo(row, owner)) return false;
    this.engine.cancel(taskId, owner);
    return true;
  }

  #visibleTo(row: TaskPollRow, principal: string): boolean {
    return row.owner === principal || this.options.seesAll === true;
  }
}
