CREATE TABLE `citation_reports` (
	`message_id` text PRIMARY KEY NOT NULL,
	`report` text NOT NULL,
	`checked_at` integer NOT NULL,
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `run_source_parts` (
	`run_id` text NOT NULL,
	`n` integer NOT NULL,
	`seq` integer NOT NULL,
	`text` text NOT NULL,
	`page_first` integer,
	`page_last` integer,
	`page_total` integer,
	PRIMARY KEY(`run_id`, `n`, `seq`),
	FOREIGN KEY (`run_id`,`n`) REFERENCES `run_sources`(`run_id`,`n`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `run_sources` (
	`run_id` text NOT NULL,
	`n` integer NOT NULL,
	`url` text NOT NULL,
	`title` text NOT NULL,
	`retrieved_at` integer NOT NULL,
	`content_hash` text NOT NULL,
	`chars` integer NOT NULL,
	PRIMARY KEY(`run_id`, `n`),
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
