CREATE TABLE `principal_buckets` (
	`principal` text PRIMARY KEY NOT NULL,
	`tokens` real NOT NULL,
	`refilled_at` integer NOT NULL
);
