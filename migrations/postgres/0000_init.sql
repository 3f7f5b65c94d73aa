CREATE TABLE "site" (
	"id" integer PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"timezone" text NOT NULL,
	"generation" integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rooms" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"capacity" integer NOT NULL,
	"features" json NOT NULL,
	"opens_at" text NOT NULL,
	"closes_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "series" (
	"id" text PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"customer" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bookings" (
	"id" text PRIMARY KEY NOT NULL,
	"room_id" text NOT NULL,
	"start_at" bigint NOT NULL,
	"end_at" bigint NOT NULL,
	"title" text NOT NULL,
	"customer" text NOT NULL,
	"attendees" integer NOT NULL,
	"required_features" json NOT NULL,
	"series_id" text,
	"flex_minutes" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'confirmed' NOT NULL,
	"version" integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"kind" text NOT NULL,
	"input" json NOT NULL,
	"dedupe_key" text NOT NULL,
	"status" text NOT NULL,
	"status_message" text,
	"result" text,
	"error" json,
	"created_at" bigint NOT NULL,
	"last_updated_at" bigint NOT NULL,
	"ttl_ms" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"poll_interval_ms" integer NOT NULL,
	"attempt" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer NOT NULL,
	"claimed_by" text,
	"lease_expires_at" bigint,
	"started_at" bigint,
	"finished_at" bigint,
	"scope_key" text,
	"scope_start" bigint,
	"scope_end" bigint
);
--> statement-breakpoint
CREATE TABLE "task_events" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "task_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"task_id" text NOT NULL,
	"at" bigint NOT NULL,
	"attempt" integer NOT NULL,
	"kind" text NOT NULL,
	"message" text NOT NULL,
	"data" json
);
--> statement-breakpoint
CREATE TABLE "reflow_moves" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "reflow_moves_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"task_id" text NOT NULL,
	"booking_id" text NOT NULL,
	"from_room" text NOT NULL,
	"to_room" text NOT NULL,
	"from_start" bigint NOT NULL,
	"to_start" bigint NOT NULL,
	"shift_minutes" integer NOT NULL,
	"applied_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reflow_unresolved" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "reflow_unresolved_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"task_id" text NOT NULL,
	"booking_id" text NOT NULL,
	"code" text NOT NULL,
	"reason" text NOT NULL,
	"recorded_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "task_inputs" (
	"task_id" text PRIMARY KEY NOT NULL,
	"round" integer NOT NULL,
	"pending" json NOT NULL,
	"responses" json NOT NULL,
	"state" json,
	"parked_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "expired_tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"expired_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "nodes" (
	"id" text PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"pid" integer NOT NULL,
	"workers" integer NOT NULL,
	"started_at" bigint NOT NULL,
	"heartbeat_at" bigint NOT NULL,
	"running" json NOT NULL
);
--> statement-breakpoint
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_series_id_series_id_fk" FOREIGN KEY ("series_id") REFERENCES "public"."series"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_events" ADD CONSTRAINT "task_events_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_inputs" ADD CONSTRAINT "task_inputs_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bookings_room_time" ON "bookings" USING btree ("room_id","start_at");--> statement-breakpoint
CREATE INDEX "bookings_time" ON "bookings" USING btree ("start_at");--> statement-breakpoint
CREATE INDEX "tasks_queue" ON "tasks" USING btree ("status","claimed_by","created_at");--> statement-breakpoint
CREATE INDEX "tasks_expiry" ON "tasks" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "tasks_owner_dedupe" ON "tasks" USING btree ("owner","dedupe_key","status");--> statement-breakpoint
CREATE INDEX "tasks_scope" ON "tasks" USING btree ("scope_key","status");--> statement-breakpoint
CREATE INDEX "task_events_task" ON "task_events" USING btree ("task_id","id");--> statement-breakpoint
CREATE INDEX "reflow_moves_task" ON "reflow_moves" USING btree ("task_id");--> statement-breakpoint
CREATE INDEX "reflow_moves_booking" ON "reflow_moves" USING btree ("booking_id");--> statement-breakpoint
CREATE INDEX "reflow_unresolved_task" ON "reflow_unresolved" USING btree ("task_id");--> statement-breakpoint
CREATE INDEX "reflow_unresolved_booking" ON "reflow_unresolved" USING btree ("booking_id");--> statement-breakpoint
CREATE INDEX "expired_tasks_at" ON "expired_tasks" USING btree ("expired_at");