import type { TaskPollRow } from '@reflow/db';
import { pendingRequests } from './input-gate.ts';
import { isTerminal, type TaskEngine } from './task-engine.ts';
import { toTaskView } from './task-view.ts';

/** A task as get() shows it: the view, and while it waits for input, what it waits on. */
export type OwnedTaskView = ReturnType<typeof toTaskView> & { inputRequests?: Record<string, unknown> };

/**
 * The engine as a task store keyed by owner: another owner's task reads as no task at all.
 * `seesAll` (an operator) sees and cancels every task; the cancel records who asked.
 */
export class OwnedTaskStore {
  constructor(
    private readonly engine: TaskEngine,
    private readonly options: { seesAll?: boolean } = {},
  ) {}

  async get(taskId: string, owner: string): Promise<OwnedTaskView | undefined> {
    const row = await this.engine.peek(taskId);
    if (!row || !this.#visibleTo(row, owner)) return undefined;
    const view = toTaskView(row, await this.engine.pollIntervalFor(row));
    // A task waiting for input shows what it waits on (SEP-2663 inputRequests, by wire key).
    return row.status === 'input_required'
      ? { ...view, inputRequests: await pendingRequests(row, this.engine.store) }
      : view;
  }

  /** Delivers input responses; false when no such task is visible. Unmatched keys are ignored; the events record who answered. */
  async update(taskId: string, owner: string, inputResponses: Record<string, unknown>): Promise<boolean> {
    const row = await this.engine.get(taskId);
    if (!row || !this.#visibleTo(row, owner)) return false;
    await this.engine.answer(taskId, inputResponses, owner);
    return true;
  }

  /** True only for the owner of a task past its TTL: anyone else still hears "not found". */
  expired(taskId: string, owner: string): Promise<boolean> {
    return this.engine.expired(taskId, owner);
  }

  async cancel(taskId: string, owner: string): Promise<boolean> {
    const row = await this.engine.get(taskId);
    if (!row || !this.#visibleTo(row, owner)) return false;
    await this.engine.cancel(taskId, owner);
    return true;
  }

  /**
   * Follows a task the principal can see: resolves with the task as get() shows it now and the stop,
   * then `onChange` gets the task each time its status, statusMessage or pending input changes, the
   * last time when it ends (or expires: undefined). Undefined, and nothing is followed, when no such
   * task is visible. Writes of other processes sharing the database are caught by a re-read every
   * `recheckMs`.
   */
  async watch(
    taskId: string,
    owner: string,
    onChange: (task: OwnedTaskView | undefined) => void,
    recheckMs = 1_000,
  ): Promise<{ task: OwnedTaskView; stop: () => void } | undefined> {
    let last: string | undefined;
    let stopped = false;
    // Heard before the first read, so no write falls between the two; the reads go one after the
    // other, the first one first, so each change is told once, after what the watch opened with.
    let reads: Promise<unknown> = Promise.resolve();
    const check = () => {
      reads = reads
        .then(async () => {
          const task = await this.get(taskId, owner);
          const seen = task ? seenAs(task) : 'gone';
          if (stopped || seen === last) return;
          last = seen;
          if (!task || isTerminal(task.status)) stop();
          onChange(task);
        })
        .catch(() => undefined); // a failed read is retried by the next change or recheck
    };
    const unsubscribe = this.engine.watch(taskId, check);
    // Its checks queue behind the first read too; every way out stops it.
    const timer = setInterval(check, recheckMs);
    timer.unref();
    const stop = () => {
      stopped = true;
      unsubscribe();
      clearInterval(timer);
    };
    const first = this.get(taskId, owner);
    reads = first.then(
      (task) => void (last = task ? seenAs(task) : 'gone'),
      () => undefined,
    );
    const task = await first.catch((error: unknown) => {
      stop();
      throw error;
    });
    if (!task) {
      stop();
      return undefined;
    }
    if (isTerminal(task.status)) stop();
    return { task, stop };
  }

  #visibleTo(row: TaskPollRow, principal: string): boolean {
    return row.owner === principal || this.options.seesAll === true;
  }
}

/** What a follower tells apart: the poll interval and timestamps alone are no news. */
function seenAs(task: OwnedTaskView): string {
  return JSON.stringify([task.status, task.statusMessage ?? null, Object.keys(task.inputRequests ?? {})]);
}
