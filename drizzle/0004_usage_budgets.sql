CREATE TABLE `usage_daily` (
	`day` text NOT NULL,
	`user` text NOT NULL,
	`prompt_tokens` integer DEFAULT 0 NOT NULL,
	`completion_tokens` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`day`, `user`)
);
--> statement-breakpoint
CREATE INDEX `usage_daily_user_idx` ON `usage_daily` (`user`,`day`);--> statement-breakpoint
ALTER TABLE `runs` ADD `tokens` integer DEFAULT 0 NOT NULL;