CREATE TABLE "private_answer_files" (
	"answer_id" integer NOT NULL,
	"position" integer NOT NULL,
	"post" integer NOT NULL,
	"name" text NOT NULL,
	"mime_type" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	CONSTRAINT "private_answer_files_answer_id_position_pk" PRIMARY KEY("answer_id","position")
);
--> statement-breakpoint
CREATE TABLE "private_workspace_files" (
	"conversation_id" text NOT NULL,
	"owner" text NOT NULL,
	"path" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	"size" bigint NOT NULL,
	"mtime" bigint NOT NULL,
	CONSTRAINT "private_workspace_files_conversation_id_owner_path_pk" PRIMARY KEY("conversation_id","owner","path")
);
