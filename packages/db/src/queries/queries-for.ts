// The SQLite queries of one connection, by group: what SqliteStore runs behind the async interface.
import type { Connection } from '../connection.ts';
import { auditQueries } from './audit-queries.ts';
import { bookingQueries } from './booking-queries.ts';
import { inputQueries } from './input-queries.ts';
import { nodeQueries } from './node-queries.ts';
import { principalQueries } from './principal-queries.ts';
import { siteQueries } from './site-queries.ts';
import { taskListQueries } from './task-list-queries.ts';
import { taskQueries } from './task-queries.ts';

export function queriesFor(connection: Connection) {
  return {
    tasks: taskQueries(connection.db),
    taskList: taskListQueries(connection.db),
    site: siteQueries(connection.db),
    bookings: bookingQueries(connection.db),
    audit: auditQueries(connection.db),
    inputs: inputQueries(connection.db),
    principals: principalQueries(connection.db),
    nodes: nodeQueries(connection.db),
  };
}
export type Queries = ReturnType<typeof queriesFor>;
