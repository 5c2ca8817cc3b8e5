CREATE TABLE `admin_links` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`person` text NOT NULL,
	`roles` text,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `admin_links_expires_idx` ON `admin_links` (`expires_at`);--> statement-breakpoint
CREATE TABLE `admin_sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`person` text NOT NULL,
	`roles` text,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `admin_sessions_expires_idx` ON `admin_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`kind` text NOT NULL,
	`actor` text,
	`run_id` text,
	`entry` text NOT NULL,
	`prev_hash` text NOT NULL,
	`hash` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_log_run_idx` ON `audit_log` (`run_id`);--> statement-breakpoint
CREATE INDEX `runs_started_idx` ON `runs` (`started_at`);