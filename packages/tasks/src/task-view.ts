import type { TaskPollRow } from '@reflow/db';
import { parsedResults } from './parsed-results.ts';

/**
 * A task as a protocol layer shows it: flat, ISO timestamps, integer durations. Structurally the
 * TaskView of packages/mcp-tasks, which this package does not import (tasks knows nothing of MCP).
 * `pollIntervalMs`: the interval to hand out now (TaskEngine.pollIntervalFor); by default the stored one.
 */
export function toTaskView(row: TaskPollRow, pollIntervalMs = row.pollIntervalMs) {
  return {
    taskId: row.id,
    status: row.status,
    ...(row.statusMessage ? { statusMessage: row.statusMessage } : {}),
    createdAt: new Date(row.createdAt).toISOString(),
    lastUpdatedAt: new Date(row.lastUpdatedAt).toISOString(),
    ttlMs: row.ttlMs,
    pollIntervalMs,
    ...(row.status === 'completed' && row.result
      ? { result: parsedResults.of(row as TaskPollRow & { result: string }) }
      : {}),
    ...(row.status === 'failed' && row.error ? { error: row.error } : {}),
  };
}
