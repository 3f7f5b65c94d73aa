// @reflow/tasks: the durable task engine. Knows nothing of MCP or bookings.
export { TaskEngine, isTerminal, type TaskEngineOptions } from './task-engine.ts';
export { WorkerPool, type RunOptions, type WorkerPoolOptions } from './worker-pool.ts';
export { AttemptInterrupted } from './attempt-runner.ts';
export { EngineStoppingError } from './engine-stopping-error.ts';
export { workerTask, newStopFlag, raiseStopFlag, WORKER_NICENESS, type WorkerContext } from './worker-task.ts';
export {
  PermanentTaskError,
  type CreateTaskRequest,
  type ResumedInput,
  type RunContext,
  type TaskHandler,
  type TaskOutcome,
  type TaskScope,
  type TaskRow,
  type TaskError,
} from './types.ts';
export type { Logger } from './logger.ts';
export { heldPollIntervalFor, pollIntervalFor, MAX_POLL_INTERVAL_MS, type PollSituation } from './poll-interval.ts';
export { newTaskId, dedupeKey } from './task-id.ts';
export { toTaskView } from './task-view.ts';
export { OwnedTaskStore, type OwnedTaskView } from './owned-task-store.ts';
export { pendingRequests, resumedInput } from './input-gate.ts';
