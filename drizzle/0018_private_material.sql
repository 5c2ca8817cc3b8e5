CREATE TABLE `private_answers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`conversation_id` text NOT NULL,
	`run_id` text,
	`message_id` integer,
	`owner` text NOT NULL,
	`purpose` text NOT NULL,
	`text` text NOT NULL,
	`state` text NOT NULL,
	`created_at` integer NOT NULL,
	`decided_at` integer
);
--> statement-breakpoint
CREATE INDEX `private_answers_conversation_idx` ON `private_answers` (`conversation_id`,`id`);--> statement-breakpoint
CREATE TABLE `private_summaries` (
	`conversation_id` text NOT NULL,
	`owner` text NOT NULL,
	`summary` text NOT NULL,
	`through_message_id` integer NOT NULL,
	`version` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`conversation_id`, `owner`)
);
--> statement-breakpoint
CREATE TABLE `recalled_memories` (
	`memory_id` integer NOT NULL,
	`message_id` integer NOT NULL,
	PRIMARY KEY(`memory_id`, `message_id`)
);
--> statement-breakpoint
ALTER TABLE `messages` ADD `private_to` text;--> statement-breakpoint
CREATE INDEX `messages_private_idx` ON `messages` (`conversation_id`,`private_to`,`id`) WHERE private_to is not null;