CREATE TABLE `site` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`timezone` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `rooms` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`capacity` integer NOT NULL,
	`features` text NOT NULL,
	`opens_at` text NOT NULL,
	`closes_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `series` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`customer` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `bookings` (
	`id` text PRIMARY KEY NOT NULL,
	`room_id` text NOT NULL,
	`start_at` integer NOT NULL,
	`end_at` integer NOT NULL,
	`title` text NOT NULL,
	`customer` text NOT NULL,
	`attendees` integer NOT NULL,
	`required_features` text NOT NULL,
	`series_id` text,
	`flex_minutes` integer DEFAULT 0 NOT NULL,
	`status` text DEFAULT 'confirmed' NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`room_id`) REFERENCES `rooms`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`series_id`) REFERENCES `series`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `bookings_room_time` ON `bookings` (`room_id`,`start_at`);--> statement-breakpoint
CREATE INDEX `bookings_time` ON `bookings` (`start_at`);--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`kind` text NOT NULL,
	`input` text NOT NULL,
	`dedupe_key` text NOT NULL,
	`status` text NOT NULL,
	`status_message` text,
	`result` text,
	`error` text,
	`created_at` integer NOT NULL,
	`last_updated_at` integer NOT NULL,
	`ttl_ms` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`poll_interval_ms` integer NOT NULL,
	`attempt` integer DEFAULT 0 NOT NULL,
	`max_attempts` integer NOT NULL,
	`claimed_by` text,
	`lease_expires_at` integer,
	`started_at` integer,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `tasks_queue` ON `tasks` (`status`,`claimed_by`,`created_at`);--> statement-breakpoint
CREATE INDEX `tasks_expiry` ON `tasks` (`expires_at`);--> statement-breakpoint
CREATE INDEX `tasks_owner_dedupe` ON `tasks` (`owner`,`dedupe_key`,`status`);--> statement-breakpoint
CREATE TABLE `task_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`task_id` text NOT NULL,
	`at` integer NOT NULL,
	`attempt` integer NOT NULL,
	`kind` text NOT NULL,
	`message` text NOT NULL,
	`data` text,
	FOREIGN KEY (`task_id`) REFERENCES `tasks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `task_events_task` ON `task_events` (`task_id`,`id`);--> statement-breakpoint
CREATE TABLE `reflow_moves` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`task_id` text NOT NULL,
	`booking_id` text NOT NULL,
	`from_room` text NOT NULL,
	`to_room` text NOT NULL,
	`from_start` integer NOT NULL,
	`to_start` integer NOT NULL,
	`shift_minutes` integer NOT NULL,
	`applied_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `reflow_moves_task` ON `reflow_moves` (`task_id`);--> statement-breakpoint
CREATE INDEX `reflow_moves_booking` ON `reflow_moves` (`booking_id`);--> statement-breakpoint
CREATE TABLE `reflow_unresolved` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`task_id` text NOT NULL,
	`booking_id` text NOT NULL,
	`code` text NOT NULL,
	`reason` text NOT NULL,
	`recorded_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `reflow_unresolved_task` ON `reflow_unresolved` (`task_id`);--> statement-breakpoint
CREATE INDEX `reflow_unresolved_booking` ON `reflow_unresolved` (`booking_id`);