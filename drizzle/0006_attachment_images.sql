ALTER TABLE `messages` ADD `images` text;--> statement-breakpoint
ALTER TABLE `tasks` ADD `images` text;