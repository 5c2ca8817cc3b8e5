CREATE TABLE "elicitations" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"conversation_id" text NOT NULL,
	"platform" text NOT NULL,
	"principal" text NOT NULL,
	"server" text NOT NULL,
	"tool" text NOT NULL,
	"request" jsonb NOT NULL,
	"fingerprint" text NOT NULL,
	"post_text" text NOT NULL,
	"message_id" text,
	"state" text NOT NULL,
	"answer" jsonb,
	"answered_by" text,
	"outcome" text,
	"carried_over" boolean DEFAULT false NOT NULL,
	"replayed_at" bigint,
	"asked_at" bigint NOT NULL,
	"settled_at" bigint
);
--> statement-breakpoint
CREATE INDEX "elicitations_run_idx" ON "elicitations" USING btree ("run_id","asked_at");