// @reflow/db: the only package that speaks SQL. Everything else uses these typed queries.
export { openDatabase, type Connection, type Db, type OpenOptions, type SynchronousMode } from './connection.ts';
export { findMigrationsFolder, migrateDatabase, migrationsApplied, type MigrateOptions } from './migrate.ts';
export { inTransaction } from './transaction.ts';
export * from './queries/task-queries.ts';
export * from './queries/site-queries.ts';
export * from './queries/booking-queries.ts';
export * from './queries/audit-queries.ts';
export * from './queries/input-queries.ts';
export * from './queries/principal-queries.ts';
export * from './queries/task-list-queries.ts';
export { BOOKING_STATUSES, TASK_STATUSES, type BookingStatus, type TaskStatus } from './schema/index.ts';

import type { Connection } from './connection.ts';
import { auditQueries } from './queries/audit-queries.ts';
import { bookingQueries } from './queries/booking-queries.ts';
import { inputQueries } from './queries/input-queries.ts';
import { principalQueries } from './queries/principal-queries.ts';
import { siteQueries } from './queries/site-queries.ts';
import { taskQueries } from './queries/task-queries.ts';

export function queriesFor(connection: Connection) {
  return {
    tasks: taskQueries(connection.db),
    site: siteQueries(connection.db),
    bookings: bookingQueries(connection.db),
    audit: auditQueries(connection.db),
    inputs: inputQueries(connection.db),
    principals: principalQueries(connection.db),
  };
}
export type Queries = ReturnType<typeof queriesFor>;
