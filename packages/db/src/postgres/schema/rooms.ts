import { integer, json, pgTable, text } from 'drizzle-orm/pg-core';

export const rooms = pgTable('rooms', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  capacity: integer('capacity').notNull(),
  features: json('features').$type<string[]>().notNull(),
  /** Wall-clock "HH:MM" in the site's time zone. */
  opensAt: text('opens_at').notNull(),
  closesAt: text('closes_at').notNull(),
});
