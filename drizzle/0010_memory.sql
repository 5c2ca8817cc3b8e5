CREATE TABLE `conversation_summaries` (
	`conversation_id` text PRIMARY KEY NOT NULL,
	`summary` text NOT NULL,
	`through_message_id` integer NOT NULL,
	`version` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `memories` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`scope` text NOT NULL,
	`subject` text NOT NULL,
	`text` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `memories_subject_idx` ON `memories` (`scope`,`subject`,`id`);--> statement-breakpoint
CREATE INDEX `memories_created_by_idx` ON `memories` (`created_by`);