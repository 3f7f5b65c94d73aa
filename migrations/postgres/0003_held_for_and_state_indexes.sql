-- A held task (waiting on an operator) was a working task claimed by 'awaiting:<party>'; it is now
-- held_for = <party> with no claim. The queue, lease and scope-holder indexes are partial: each holds
-- the rows of one lifecycle state (packages/db/src/lifecycle/task-states.ts).
DROP INDEX "tasks_queue";--> statement-breakpoint
DROP INDEX "tasks_scope";--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "held_for" text;--> statement-breakpoint
UPDATE "tasks" SET "held_for" = substr("claimed_by", 10), "claimed_by" = NULL WHERE "claimed_by" LIKE 'awaiting:%';--> statement-breakpoint
CREATE INDEX "tasks_queued" ON "tasks" USING btree ("created_at","id") WHERE "status" = 'working' and "claimed_by" is null and "held_for" is null;--> statement-breakpoint
CREATE INDEX "tasks_leased" ON "tasks" USING btree ("lease_expires_at") WHERE "status" = 'working' and "claimed_by" is not null;--> statement-breakpoint
CREATE INDEX "tasks_scope_holders" ON "tasks" USING btree ("scope_key","scope_start") WHERE ("status" = 'input_required' or ("status" = 'working' and ("claimed_by" is not null or "held_for" is not null)));