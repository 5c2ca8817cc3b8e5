CREATE TABLE `private_answer_files` (
	`answer_id` integer NOT NULL,
	`position` integer NOT NULL,
	`post` integer NOT NULL,
	`name` text NOT NULL,
	`mime_type` text NOT NULL,
	`bytes` blob NOT NULL,
	PRIMARY KEY(`answer_id`, `position`)
);
--> statement-breakpoint
CREATE TABLE `private_workspace_files` (
	`conversation_id` text NOT NULL,
	`owner` text NOT NULL,
	`path` text NOT NULL,
	`bytes` blob NOT NULL,
	`size` integer NOT NULL,
	`mtime` integer NOT NULL,
	PRIMARY KEY(`conversation_id`, `owner`, `path`)
);
