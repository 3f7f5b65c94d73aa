import type { TaskRow } from '@reflow/db';

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
