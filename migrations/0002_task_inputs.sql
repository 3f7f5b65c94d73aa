CREATE TABLE `task_inputs` (
	`task_id` text PRIMARY KEY NOT NULL,
	`round` integer NOT NULL,
	`pending` text NOT NULL,
	`responses` text NOT NULL,
	`state` text,
	`parked_at` integer NOT NULL,
	FOREIGN KEY (`task_id`) REFERENCES `tasks`(`id`) ON UPDATE no action ON DELETE cascade
);
