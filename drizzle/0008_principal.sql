ALTER TABLE `runs` ADD `principal` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `principal_roles` text;--> statement-breakpoint
ALTER TABLE `schedules` ADD `creator_roles` text;--> statement-breakpoint
ALTER TABLE `tasks` ADD `requester_roles` text;--> statement-breakpoint
ALTER TABLE `tasks` ADD `from_schedule` integer DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE `tasks` SET `from_schedule` = 1 WHERE `created_by` = 'schedule';--> statement-breakpoint
UPDATE `tasks` SET `requested_by` = (SELECT `created_by` FROM `schedules` WHERE `schedules`.`id` = `tasks`.`schedule_id` AND `schedules`.`created_by` <> 'agent') WHERE `requested_by` IS NULL AND `schedule_id` IS NOT NULL;--> statement-breakpoint
UPDATE `runs` SET `principal` = (SELECT `requested_by` FROM `tasks` WHERE `tasks`.`id` = `runs`.`task_id`) WHERE `principal` IS NULL AND `status` IN ('running', 'waiting_user');
