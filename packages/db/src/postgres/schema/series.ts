import { pgTable, text } from 'drizzle-orm/pg-core';

export const series = pgTable('series', {
  id: text('id').primaryKey(),
  title: text('title').notNull(),
  customer: text('customer').notNull(),
});
