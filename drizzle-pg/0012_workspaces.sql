CREATE TABLE "workspace_files" (
	"conversation_id" text NOT NULL,
	"path" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	"size" bigint NOT NULL,
	"mtime" bigint NOT NULL,
	CONSTRAINT "workspace_files_conversation_id_path_pk" PRIMARY KEY("conversation_id","path")
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
	"conversation_id" text PRIMARY KEY NOT NULL,
	"last_used_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "workspaces_last_used_idx" ON "workspaces" USING btree ("last_used_at");