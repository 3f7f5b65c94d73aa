import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

// The server processes sharing the database, each with a heartbeat (docs/architecture.md, "Nodes").
// A node whose heartbeat lapsed is dead: any survivor releases its claims.
export const nodes = sqliteTable('nodes', {
  id: text('id').primaryKey(),
  host: text('host').notNull(),
  pid: integer('pid').notNull(),
  workers: integer('workers').notNull(),
  startedAt: integer('started_at').notNull(),
  heartbeatAt: integer('heartbeat_at').notNull(),
  /** Task ids it runs, as of its last heartbeat. */
  running: text('running', { mode: 'json' }).$type<string[]>().notNull(),
});
