CREATE TABLE `conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`platform` text NOT NULL,
	`workspace` text NOT NULL,
	`channel` text NOT NULL,
	`thread` text,
	`timezone` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `conversations_channel_idx` ON `conversations` (`platform`,`workspace`,`channel`);--> statement-breakpoint
CREATE TABLE `messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`conversation_id` text NOT NULL,
	`run_id` text,
	`role` text NOT NULL,
	`content` text,
	`tool_calls` text,
	`tool_call_id` text,
	`author_id` text,
	`platform_message_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `messages_conversation_idx` ON `messages` (`conversation_id`,`id`);--> statement-breakpoint
CREATE TABLE `processed_events` (
	`key` text PRIMARY KEY NOT NULL,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `processed_events_received_idx` ON `processed_events` (`received_at`);--> statement-breakpoint
CREATE TABLE `runs` (
	`id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`task_id` integer,
	`status` text NOT NULL,
	`steps` integer DEFAULT 0 NOT NULL,
	`question` text,
	`ask_expires_at` integer,
	`summary` text,
	`error` text,
	`started_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`ended_at` integer,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`task_id`) REFERENCES `tasks`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `runs_one_active_per_conversation` ON `runs` (`conversation_id`) WHERE status in ('running', 'waiting_user');--> statement-breakpoint
CREATE INDEX `runs_ask_expiry_idx` ON `runs` (`ask_expires_at`) WHERE status = 'waiting_user';--> statement-breakpoint
CREATE INDEX `runs_conversation_idx` ON `runs` (`conversation_id`,`started_at`);--> statement-breakpoint
CREATE TABLE `schedules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`platform` text NOT NULL,
	`workspace` text NOT NULL,
	`channel` text NOT NULL,
	`target` text NOT NULL,
	`conversation_id` text,
	`prompt` text NOT NULL,
	`kind` text NOT NULL,
	`spec` text NOT NULL,
	`timezone` text NOT NULL,
	`status` text NOT NULL,
	`anchor_at` integer NOT NULL,
	`next_run_at` integer,
	`last_run_at` integer,
	`run_count` integer DEFAULT 0 NOT NULL,
	`created_by` text NOT NULL,
	`fail_reason` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `schedules_due_idx` ON `schedules` (`status`,`next_run_at`);--> statement-breakpoint
CREATE INDEX `schedules_channel_idx` ON `schedules` (`platform`,`workspace`,`channel`,`status`);--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`conversation_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`sequence` integer NOT NULL,
	`blocked_by` text DEFAULT '[]' NOT NULL,
	`blocked` integer DEFAULT false NOT NULL,
	`result_summary` text,
	`fail_reason` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`not_before` integer DEFAULT 0 NOT NULL,
	`created_by` text NOT NULL,
	`requested_by` text,
	`source_message_id` text,
	`schedule_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `tasks_ready_idx` ON `tasks` (`not_before`,`conversation_id`) WHERE status = 'pending' and blocked = 0;--> statement-breakpoint
CREATE INDEX `tasks_conversation_idx` ON `tasks` (`conversation_id`,`sequence`);