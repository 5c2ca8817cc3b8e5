-- Full-text search over memories: a generated tsvector with a GIN index.
ALTER TABLE "memories" ADD COLUMN "search" tsvector GENERATED ALWAYS AS (to_tsvector('english', "text")) STORED;
--> statement-breakpoint
CREATE INDEX "memories_search_idx" ON "memories" USING gin ("search");
