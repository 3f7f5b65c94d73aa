import { integer, pgTable, text } from 'drizzle-orm/pg-core';

// One site per database: its name and the IANA zone its opening hours are written in (as schema/site.ts).
export const site = pgTable('site', {
  id: integer('id').primaryKey(),
  name: text('name').notNull(),
  timezone: text('timezone').notNull(),
  /** Bumped by every import that replaces the site (see schema/site.ts). */
  generation: integer('generation').notNull().default(1),
});
