-- Several app instances (docs/architecture.md, "Several app instances"): the instance that owns a running run,
-- the instances' heartbeats, and one running run per conversation held by the database itself.
CREATE TABLE "instances" (
	"id" text PRIMARY KEY NOT NULL,
	"started_at" bigint NOT NULL,
	"seen_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "instance_id" text;--> statement-breakpoint
CREATE UNIQUE INDEX "runs_running_conversation_idx" ON "runs" USING btree ("conversation_id") WHERE status = 'running';