-- A conversation's own instructions and model options; a user's presets (one may be the default for new chats).
ALTER TABLE `conversations` ADD `settings` text DEFAULT '{}' NOT NULL;
--> statement-breakpoint
CREATE TABLE `presets` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text,
	`name` text NOT NULL,
	`model` text,
	`settings` text NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `presets_user_idx` ON `presets` (`user_id`);
