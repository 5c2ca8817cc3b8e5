CREATE TABLE "deployment_keys" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tool_consents" (
	"conversation_id" text NOT NULL,
	"tool" text NOT NULL,
	"principal" text NOT NULL,
	"granted_by" text,
	"created_at" bigint NOT NULL,
	CONSTRAINT "tool_consents_conversation_id_tool_principal_pk" PRIMARY KEY("conversation_id","tool","principal")
);
