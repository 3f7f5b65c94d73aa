// The SQLite queries of one connection, by group, each typed against its Store group (Synchronous):
// what SqliteStore runs behind the async interface. Every instant is read from `clock`.
import type { Connection } from '../connection.ts';
import type {
  AuditStore,
  BookingStore,
  InputStore,
  NodeStore,
  PrincipalStore,
  SiteStore,
  TaskListStore,
  TaskStore,
} from '../store.ts';
import { auditQueries } from './audit-queries.ts';
import { bookingQueries } from './booking-queries.ts';
import { inputQueries } from './input-queries.ts';
import { nodeQueries } from './node-queries.ts';
import { principalQueries } from './principal-queries.ts';
import { siteQueries } from './site-queries.ts';
import type { Synchronous } from './synchronous.ts';
import { taskListQueries } from './task-list-queries.ts';
import { taskQueries } from './task-queries.ts';
import type { SendSignal } from './task-transition.ts';

/** `signal`: where the queries send the signals of the transitions they run (none by default). */
export function queriesFor(connection: Connection, clock: () => number, signal: SendSignal = () => {}) {
  const { db } = connection;
  return {
    tasks: taskQueries(db, clock, signal) satisfies Synchronous<Omit<TaskStore, 'createOrFind'>>,
    taskList: taskListQueries(db, clock) satisfies Synchronous<TaskListStore>,
    site: siteQueries(db) satisfies Synchronous<SiteStore>,
    bookings: bookingQueries(db) satisfies Synchronous<BookingStore>,
    audit: auditQueries(db) satisfies Synchronous<AuditStore>,
    inputs: inputQueries(db, clock) satisfies Synchronous<InputStore>,
    principals: principalQueries(db, clock) satisfies Synchronous<PrincipalStore>,
    nodes: nodeQueries(db, clock, signal) satisfies Synchronous<NodeStore>,
  };
}
export type Queries = ReturnType<typeof queriesFor>;
