import { doublePrecision, pgTable, text } from 'drizzle-orm/pg-core';
import { epochMs } from './epoch-ms.ts';

// Each principal's task-creation token bucket, shared by every node; refilled on the database's clock.
export const principalBuckets = pgTable('principal_buckets', {
  principal: text('principal').primaryKey(),
  tokens: doublePrecision('tokens').notNull(),
  refilledAt: epochMs('refilled_at').notNull(),
});
