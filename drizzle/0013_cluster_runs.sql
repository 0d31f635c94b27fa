-- Several app instances (docs/architecture.md, "Several app instances"): the instance that owns a running run,
-- the instances' heartbeats, and one running run per conversation held by the database itself.
ALTER TABLE `runs` ADD `instance_id` text;
--> statement-breakpoint
CREATE TABLE `instances` (
	`id` text PRIMARY KEY NOT NULL,
	`started_at` integer NOT NULL,
	`seen_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `runs_running_conversation_idx` ON `runs` (`conversation_id`) WHERE status = 'running';
