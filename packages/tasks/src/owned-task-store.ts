import type { TaskPollRow } from '@reflow/db';
import { pendingRequests } from './input-gate.ts';
import { isTerminal, type TaskEngine } from './task-engine.ts';
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

  /**
   * Follows a task the principal can see: `onChange` gets the task as get() shows it whenever its
   * status, statusMessage or pending input changes, the last time when it ends (or expires:
   * undefined). Undefined, and nothing is followed, when no such task is visible. Writes of other
   * processes sharing the database are caught by a re-read every `recheckMs`.
   */
  watch(
    taskId: string,
    owner: string,
    onChange: (task: ReturnType<OwnedTaskStore['get']>) => void,
    recheckMs = 1_000,
  ): (() => void) | undefined {
    const first = this.get(taskId, owner);
    if (!first) return undefined;
    let last = seenAs(first);
    let stopped = false;
    const check = () => {
      if (stopped) return;
      const task = this.get(taskId, owner);
      const seen = task ? seenAs(task) : 'gone';
      if (seen === last) return;
      last = seen;
      if (!task || isTerminal(task.status)) stop();
      onChange(task);
    };
    const unsubscribe = this.engine.watch(taskId, check);
    const timer = setInterval(check, recheckMs);
    timer.unref();
    const stop = () => {
      stopped = true;
      unsubscribe();
      clearInterval(timer);
    };
    if (isTerminal(first.status)) stop();
    return stop;
  }

  #visibleTo(row: TaskPollRow, principal: string): boolean {
    return row.owner === principal || this.options.seesAll === true;
  }
}

/** What a follower tells apart: the poll interval and timestamps alone are no news. */
function seenAs(task: NonNullable<ReturnType<OwnedTaskStore['get']>>): string {
  return JSON.stringify([task.status, task.statusMessage ?? null, Object.keys(task.inputRequests ?? {})]);
}
