import type { TaskRow } from '@reflow/db';
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

  get(taskId: string, owner: string) {
    const row = this.engine.get(taskId);
    return row && this.#visibleTo(row, owner) ? toTaskView(row) : undefined;
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
