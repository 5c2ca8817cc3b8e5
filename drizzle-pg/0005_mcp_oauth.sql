CREATE TABLE "mcp_connections" (
	"principal" text NOT NULL,
	"server" text NOT NULL,
	"tokens" text NOT NULL,
	"scopes" jsonb NOT NULL,
	"account" text,
	"expires_at" bigint,
	"version" integer DEFAULT 0 NOT NULL,
	"refresh_holder" text,
	"refresh_until" bigint,
	"connected_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "mcp_connections_principal_server_pk" PRIMARY KEY("principal","server")
);
--> statement-breakpoint
CREATE TABLE "mcp_oauth_clients" (
	"server" text PRIMARY KEY NOT NULL,
	"client" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_oauth_pending" (
	"state" text PRIMARY KEY NOT NULL,
	"principal" text NOT NULL,
	"server" text NOT NULL,
	"run_id" text,
	"code_verifier" text NOT NULL,
	"scopes" jsonb NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "mcp_oauth_pending_expires_idx" ON "mcp_oauth_pending" USING btree ("expires_at");