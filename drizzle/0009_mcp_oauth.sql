CREATE TABLE `mcp_connections` (
	`principal` text NOT NULL,
	`server` text NOT NULL,
	`tokens` text NOT NULL,
	`scopes` text NOT NULL,
	`account` text,
	`expires_at` integer,
	`version` integer DEFAULT 0 NOT NULL,
	`refresh_holder` text,
	`refresh_until` integer,
	`connected_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`principal`, `server`)
);
--> statement-breakpoint
CREATE TABLE `mcp_oauth_clients` (
	`server` text PRIMARY KEY NOT NULL,
	`client` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `mcp_oauth_pending` (
	`state` text PRIMARY KEY NOT NULL,
	`principal` text NOT NULL,
	`server` text NOT NULL,
	`run_id` text,
	`code_verifier` text NOT NULL,
	`scopes` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `mcp_oauth_pending_expires_idx` ON `mcp_oauth_pending` (`expires_at`);