CREATE TABLE `run_costs` (
	`run_id` text PRIMARY KEY NOT NULL,
	`cost_usd` real DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `run_traces` (
	`run_id` text PRIMARY KEY NOT NULL,
	`traceparent` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `usage_model_daily` (
	`day` text NOT NULL,
	`user` text NOT NULL,
	`model` text NOT NULL,
	`prompt_tokens` integer DEFAULT 0 NOT NULL,
	`completion_tokens` integer DEFAULT 0 NOT NULL,
	`cached_tokens` integer DEFAULT 0 NOT NULL,
	`cost_usd` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`day`, `user`, `model`)
);
--> statement-breakpoint
CREATE INDEX `usage_model_daily_user_idx` ON `usage_model_daily` (`user`,`day`);