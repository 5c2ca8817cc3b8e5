CREATE TABLE "outbox_files" (
	"outbox_id" bigint NOT NULL,
	"position" integer NOT NULL,
	"name" text NOT NULL,
	"mime_type" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	"staged_id" text,
	CONSTRAINT "outbox_files_outbox_id_position_pk" PRIMARY KEY("outbox_id","position")
);
