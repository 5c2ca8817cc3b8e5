CREATE TABLE "run_costs" (
	"run_id" text PRIMARY KEY NOT NULL,
	"cost_usd" double precision DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "run_traces" (
	"run_id" text PRIMARY KEY NOT NULL,
	"traceparent" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_model_daily" (
	"day" text NOT NULL,
	"user" text NOT NULL,
	"model" text NOT NULL,
	"prompt_tokens" bigint DEFAULT 0 NOT NULL,
	"completion_tokens" bigint DEFAULT 0 NOT NULL,
	"cached_tokens" bigint DEFAULT 0 NOT NULL,
	"cost_usd" double precision DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_model_daily_day_user_model_pk" PRIMARY KEY("day","user","model")
);
--> statement-breakpoint
CREATE INDEX "usage_model_daily_user_idx" ON "usage_model_daily" USING btree ("user","day");