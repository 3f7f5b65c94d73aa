import { integer, json, pgTable, text } from 'drizzle-orm/pg-core';
import { epochMs } from './epoch-ms.ts';

// The server processes sharing the database, each with a heartbeat on the database's clock.
export const nodes = pgTable('nodes', {
  id: text('id').primaryKey(),
  host: text('host').notNull(),
  pid: integer('pid').notNull(),
  workers: integer('workers').notNull(),
  startedAt: epochMs('started_at').notNull(),
  heartbeatAt: epochMs('heartbeat_at').notNull(),
  running: json('running').$type<string[]>().notNull(),
});
