import type { TaskRow } from '@reflow/db';
import { pendingRequests } from './input-gate.ts';
import type { TaskEngine } from './task-engine.ts';

/**
 * A task as a protocol layer shows it: flat, ISO timestamps, integer durations. Structurally the
 * TaskView of packages/mcp-tasks, which this package does not import (tasks knows nothing of MCP).
 */
export function toTaskView(row: TaskRow) {
  return {
    taskId: row.id,
    status: row.status,
    ...(row.statusMessage ? { statusMessage: row.statusMessage } : {}),
    createdAt: new Date(row.createdAt).toISOString(),
    lastUpdatedAt: new Date(row.lastUpdatedAt).toISOString(),
    ttlMs: row.ttlMs,
    pollIntervalMs: row.pollIntervalMs,
    ...(row.status === 'completed' && row.result ? { result: JSON.parse(row.result) as Record<string, unknown> } : {}),
    ...(row.status === 'failed' && row.error ? { error: row.error } : {}),
  };
}

/**
 * The engine as a task store keyed by owner: another owner's task reads as no task at all.
 * `seesAll` (an operator) sees and cancels every task; the cancel records who asked.
 */
export class OwnedTaskStore {
  constructor(
    private readonly engine: TaskEngine,
    private readonly options: { seesAll?: boolean } = {},
  ) {}

  get(taskId: string, owner: string): (ReturnType<typeof toTaskView> & { inputRequests?: Record<string, unknown> }) | undefined {
    const row = this.engine.get(taskId);
    if (!row || !this.#visibleTo(row, owner)) return undefined;
    // A task waiting for input shows what it waits on (SEP-2663 inputRequests, by wire key).
    return row.status === 'input_required' ? { ...toTaskView(row), inputRequests: pendingRequests(row, this.engine.queries) } : toTaskView(row);
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

  #visibleTo(row: TaskRow, principal: string): boolean {
    return row.owner === principal || this.options.seesAll === true;
  }
}
