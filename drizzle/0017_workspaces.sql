CREATE TABLE `workspace_files` (
	`conversation_id` text NOT NULL,
	`path` text NOT NULL,
	`bytes` blob NOT NULL,
	`size` integer NOT NULL,
	`mtime` integer NOT NULL,
	PRIMARY KEY(`conversation_id`, `path`)
);
--> statement-breakpoint
CREATE TABLE `workspaces` (
	`conversation_id` text PRIMARY KEY NOT NULL,
	`last_used_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `workspaces_last_used_idx` ON `workspaces` (`last_used_at`);