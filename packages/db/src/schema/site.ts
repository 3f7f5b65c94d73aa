import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

// One site per database: its name and the IANA zone its opening hours are written in.
export const site = sqliteTable('site', {
  id: integer('id').primaryKey(),
  name: text('name').notNull(),
  timezone: text('timezone').notNull(),
  /**
   * Bumped by every import that replaces the site. Booking versions restart with a re-import, so
   * an apply checks this too: a plan made from an earlier generation must not write into this one.
   */
  generation: integer('generation').notNull().default(1),
});
