CREATE TABLE `expired_tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`expired_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `expired_tasks_at` ON `expired_tasks` (`expired_at`);--> statement-breakpoint
ALTER TABLE `tasks` ADD `scope_key` text;--> statement-breakpoint
ALTER TABLE `tasks` ADD `scope_start` integer;--> statement-breakpoint
ALTER TABLE `tasks` ADD `scope_end` integer;--> statement-breakpoint
CREATE INDEX `tasks_scope` ON `tasks` (`scope_key`,`status`);