// @reflow/mcp-tasks: the MCP Tasks extension (SEP-2663) for @modelcontextprotocol/server.
// Knows nothing of bookings; tasks come from any TaskStore.
export { TasksExtension, type TasksExtensionOptions } from './tasks-extension.ts';
export type { TaskToolDefinition, ToolCall } from './task-tools.ts';
export type { TaskError, TaskStatus, TaskStore, TaskView } from './task-store.ts';
export { TaskListenRouter, type TaskListenOptions, type TaskListenRequest } from './task-listen.ts';
export { type TaskFollower } from './task-subscription.ts';
export { StdioTaskListenTransport, type StdioTaskListenOptions } from './task-listen-stdio.ts';
export { answerTasksGet, type TasksGetRequest } from './tasks-get-fast-path.ts';
export { type DirectRequest, type ServerInfo } from './direct-request.ts';
export { answerTaskToolCall } from './task-call-fast-path.ts';
export {
  TASKS_EXTENSION_ID,
  CLIENT_CAPABILITIES_META_KEY,
  clientCapabilities,
  createTaskResult,
  declaresTasks,
  getTaskResult,
} from './wire.ts';
export { LegacyTasks, type LegacyTaskStore, type LegacyTasksOptions } from './legacy-tasks.ts';
export { LEGACY_POLL_REVISION } from './legacy-request.ts';
export {
  answerLegacyTaskPoll,
  type LegacyPollAnswer,
  type LegacyPollCaller,
  type LegacyPollRequest,
} from './legacy-tasks-poll.ts';
export { answerLegacyTaskCall, type LegacyCallAnswer, type LegacyCallCaller } from './legacy-task-call.ts';
export { LEGACY_TASKS_CAPABILITY, RELATED_TASK_META_KEY, legacyTask } from './legacy-wire.ts';
export { LegacySessions, type LegacySessionRequest, type LegacySessionsOptions } from './legacy-sessions.ts';
export { LegacyStatusPushTransport, type LegacyStatusPushOptions } from './legacy-status-push.ts';
export { DEFAULT_HELD_PER_PRINCIPAL, HeldRequests, HeldRequestsLimitError, holdFor } from './held-requests.ts';
export { listenForUnexpectedErrors, ToolRefusal, type UnexpectedErrorListener } from './start-errors.ts';
