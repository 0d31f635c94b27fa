-- Follow-ups sent while a run works are held on the server until the run takes them, they become the next turn, or the user sends or discards them.
CREATE TABLE `interrupts` (
	`id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`run_id` text NOT NULL,
	`text` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `interrupts_conversation_idx` ON `interrupts` (`conversation_id`,`created_at`);