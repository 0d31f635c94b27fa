-- Memory (docs/architecture.md, "Projects and memory"): a memory names the run that proposed it, so one
-- saved while its answer still streams names the answer once stored; the proposals a user dismissed.
CREATE TABLE `memory_dismissals` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text,
	`run_id` text NOT NULL,
	`text` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `memory_dismissals_run_idx` ON `memory_dismissals` (`run_id`);--> statement-breakpoint
-- drizzle-kit leaves out the column's ON DELETE here: a memory outlives its run (its conversation deleted).
ALTER TABLE `memories` ADD `run_id` text REFERENCES runs(id) ON DELETE set null;--> statement-breakpoint
CREATE INDEX `memories_run_idx` ON `memories` (`run_id`);