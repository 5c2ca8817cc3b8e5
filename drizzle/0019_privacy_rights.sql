CREATE TABLE `deployment_keys` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `schedule_launches` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`schedule_id` integer NOT NULL,
	`fired_at` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`prompt` text NOT NULL,
	`target` text NOT NULL,
	`platform` text NOT NULL,
	`workspace` text NOT NULL,
	`channel` text NOT NULL,
	`conversation_id` text,
	`note_outbox_id` integer,
	`attempts` integer DEFAULT 0 NOT NULL,
	`not_before` integer DEFAULT 0 NOT NULL,
	`error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `schedule_launches_pending_idx` ON `schedule_launches` (`not_before`) WHERE status = 'pending';--> statement-breakpoint
CREATE TABLE `tool_consents` (
	`conversation_id` text NOT NULL,
	`tool` text NOT NULL,
	`principal` text NOT NULL,
	`granted_by` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`conversation_id`, `tool`, `principal`)
);
