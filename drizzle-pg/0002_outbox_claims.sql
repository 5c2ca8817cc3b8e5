CREATE TABLE "outbox_claims" (
	"conversation_id" text collate "C" PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"claim_until" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "outbox_claims" ADD CONSTRAINT "outbox_claims_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;