CREATE TABLE "skill_pins" (
	"name" text PRIMARY KEY NOT NULL,
	"pin" text NOT NULL,
	"enabled_by" text NOT NULL,
	"enabled_at" bigint NOT NULL
);
