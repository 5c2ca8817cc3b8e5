CREATE TABLE `elicitations` (
	`id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`platform` text NOT NULL,
	`principal` text NOT NULL,
	`server` text NOT NULL,
	`tool` text NOT NULL,
	`request` text NOT NULL,
	`fingerprint` text NOT NULL,
	`post_text` text NOT NULL,
	`message_id` text,
	`state` text NOT NULL,
	`answer` text,
	`answered_by` text,
	`outcome` text,
	`carried_over` integer DEFAULT false NOT NULL,
	`replayed_at` integer,
	`asked_at` integer NOT NULL,
	`settled_at` integer
);
--> statement-breakpoint
CREATE INDEX `elicitations_run_idx` ON `elicitations` (`run_id`,`asked_at`);