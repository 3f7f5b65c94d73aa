import { sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const series = sqliteTable('series', {
  id: text('id').primaryKey(),
  title: text('title').notNull(),
  customer: text('customer').notNull(),
});
