-- Pinned conversations are listed first; archived ones are out of the sidebar until the archive filter shows them.
ALTER TABLE `conversations` ADD `pinned` integer DEFAULT false NOT NULL;
--> statement-breakpoint
ALTER TABLE `conversations` ADD `archived` integer DEFAULT false NOT NULL;
