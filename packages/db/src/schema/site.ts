import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

// One site per database: its name and the IANA zone its opening hours are written in.
export const site = sqliteTable('site', {
  id: integer('id').primaryKey(),
  name: text('name').notNull(),
  timezone: text('timezone').notNull(),
});
