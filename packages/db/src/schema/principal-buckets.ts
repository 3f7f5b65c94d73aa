import { integer, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';

// Each principal's task-creation token bucket, kept in the database so the rate limit holds for
// every node sharing it (docs/operations.md, "Abuse limits"). Refilled lazily when a token is taken.
export const principalBuckets = sqliteTable('principal_buckets', {
  principal: text('principal').primaryKey(),
  /** Tokens left as of refilledAt (fractional: the bucket refills continuously). */
  tokens: real('tokens').notNull(),
  refilledAt: integer('refilled_at').notNull(),
});
