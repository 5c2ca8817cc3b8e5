CREATE TABLE `outbox_files` (
	`outbox_id` integer NOT NULL,
	`position` integer NOT NULL,
	`name` text NOT NULL,
	`mime_type` text NOT NULL,
	`bytes` blob NOT NULL,
	`staged_id` text,
	PRIMARY KEY(`outbox_id`, `position`)
);
