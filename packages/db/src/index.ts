// @reflow/db: the only package that speaks SQL. Everything else talks to the asynchronous Store
// (store.ts), implemented for SQLite (sqlite-store.ts) and PostgreSQL.
export type * from './store.ts';
export type { TokenTaken } from './queries/principal-queries.ts';
export { SqliteStore, openSqliteStore, type SqliteStoreOptions } from './sqlite-store.ts';
export { startWalCheckpointer, BACKSTOP_PAGES, type WalCheckpointer } from './wal-checkpointer.ts';
export { type SynchronousMode } from './connection.ts';
export type { AnswerOutcome, TaskInputRow } from './queries/input-queries.ts';
export {
  isTerminalStatus,
  OPEN_STATUSES,
  stateOf,
  TASK_ROW_STATES,
  TERMINAL_STATUSES,
  type TaskRowState,
  type TerminalStatus,
} from './lifecycle/task-states.ts';
export { TRANSITIONS, type TransitionName, type TransitionRule } from './lifecycle/task-transitions.ts';
export { StaleAttemptError, TOMBSTONE_RETENTION_MS } from './queries/task-rows.ts';
export type { AttemptFence, TaskError, TaskEventRow, TaskRow } from './queries/task-rows.ts';
export type { TaskPollRow } from './queries/task-poll-queries.ts';
export type { TaskListCursor, TaskListFilter } from './queries/task-list-queries.ts';
export type { BookingRow } from './queries/booking-queries.ts';
export type { MoveAuditRow, UnresolvedAuditRow } from './queries/audit-queries.ts';
export type { NewBookingRow, RoomRow, SeriesRow, SiteData, SiteRow } from './queries/site-queries.ts';
export {
  BOOKING_STATUSES,
  TASK_STATUSES,
  type BookingStatus,
  type PendingInput,
  type TaskStatus,
} from './schema/index.ts';
export { PostgresStore, openPostgresStore, type PostgresStoreOptions } from './postgres/postgres-store.ts';
export { DatabaseUrlError, describeDatabaseUrl } from './postgres/database-url.ts';
export { SchemaTooNewError } from './postgres/migrate.ts';
export { openStore, type OpenStoreOptions } from './open-store.ts';
export { PoolExhaustedError, storeTrouble, type StoreTrouble } from './store-errors.ts';
