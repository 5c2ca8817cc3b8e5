CREATE TABLE `tool_grants` (
	`conversation_id` text NOT NULL,
	`tool` text NOT NULL,
	`granted_by` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`conversation_id`, `tool`),
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade
);
