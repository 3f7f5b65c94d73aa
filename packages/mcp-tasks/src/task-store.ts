// What the Tasks extension needs from whoever keeps tasks. packages/tasks implements it over its
// store; nothing here knows how or where tasks are kept.

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/** A task as the wire shows it (SEP-2663): flat, timestamps ISO 8601, durations integer ms. */
export interface TaskView {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  /** When completed: the CallToolResult the synchronous call would have returned. */
  result?: Record<string, unknown>;
  /** When failed. */
  error?: TaskError;
  inputRequests?: Record<string, unknown>;
}

export interface TaskStore {
  /** The task, or undefined when it is unknown, expired, or belongs to another principal: all look alike. */
  get(taskId: string, principal: string): TaskView | undefined | Promise<TaskView | undefined>;
  /**
   * Whether the principal's own task has passed its TTL, so the error can say "Task has expired"
   * instead of "Task not found". Must be false for another principal's task (no existence leak).
   */
  expired?(taskId: string, principal: string): boolean | Promise<boolean>;
  /** Requests cancellation. False when no such task is visible to the principal. Terminal tasks stay as they are. */
  cancel(taskId: string, principal: string): boolean | Promise<boolean>;
  /** Delivers input responses to a task waiting for them. False when no such task is visible to the principal. */
  update?(taskId: string, principal: string, inputResponses: Record<string, unknown>): boolean | Promise<boolean>;
}
