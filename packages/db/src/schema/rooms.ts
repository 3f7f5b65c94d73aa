import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const rooms = sqliteTable('rooms', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  capacity: integer('capacity').notNull(),
  features: text('features', { mode: 'json' }).$type<string[]>().notNull(),
  /** Wall-clock "HH:MM" in the site's time zone. */
  opensAt: text('opens_at').notNull(),
  closesAt: text('closes_at').notNull(),
});
