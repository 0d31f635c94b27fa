CREATE TABLE `file_chunks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`file_id` text NOT NULL,
	`seq` integer NOT NULL,
	`text` text NOT NULL,
	`folded` text NOT NULL,
	`start` integer NOT NULL,
	`page_first` integer,
	`page_last` integer,
	FOREIGN KEY (`file_id`) REFERENCES `files`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `file_chunks_file_idx` ON `file_chunks` (`file_id`,`seq`);--> statement-breakpoint
CREATE TABLE `memories` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text,
	`text` text NOT NULL,
	`conversation_id` text,
	`message_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `memories_user_idx` ON `memories` (`user_id`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text,
	`name` text NOT NULL,
	`instructions` text DEFAULT '' NOT NULL,
	`model` text,
	`preset_id` text,
	`collapsed` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`preset_id`) REFERENCES `presets`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `projects_user_idx` ON `projects` (`user_id`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_files` (
	`id` text PRIMARY KEY NOT NULL,
	`conversation_id` text,
	`project_id` text,
	`origin` text NOT NULL,
	`filename` text NOT NULL,
	`mime` text NOT NULL,
	`size` integer NOT NULL,
	`sha256` text NOT NULL,
	`page_count` integer,
	`source_url` text,
	`bytes` blob NOT NULL,
	`indexed_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "files_one_owner" CHECK(("__new_files"."conversation_id" is null) <> ("__new_files"."project_id" is null))
);
--> statement-breakpoint
INSERT INTO `__new_files`("rowid", "id", "conversation_id", "project_id", "origin", "filename", "mime", "size", "sha256", "page_count", "source_url", "bytes", "indexed_at", "created_at") SELECT "rowid", "id", "conversation_id", NULL, "origin", "filename", "mime", "size", "sha256", "page_count", "source_url", "bytes", NULL, "created_at" FROM `files`;--> statement-breakpoint
DROP TABLE `files`;--> statement-breakpoint
ALTER TABLE `__new_files` RENAME TO `files`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `files_conversation_idx` ON `files` (`conversation_id`);--> statement-breakpoint
CREATE INDEX `files_project_idx` ON `files` (`project_id`);--> statement-breakpoint
ALTER TABLE `conversations` ADD `project_id` text REFERENCES projects(id) ON DELETE set null;--> statement-breakpoint
ALTER TABLE `conversations` ADD `private` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `conversations_project_idx` ON `conversations` (`project_id`);--> statement-breakpoint
-- The library index (docs/architecture.md, "The library index"): FTS5 over file_chunks.folded with the
-- trigram tokenizer, so Japanese and Chinese match without a word segmenter; the triggers keep it in
-- step with file_chunks, whose rows go with their file (ON DELETE CASCADE fires them too).
CREATE VIRTUAL TABLE `file_chunks_fts` USING fts5(`folded`, content='file_chunks', content_rowid='id', tokenize='trigram remove_diacritics 1');--> statement-breakpoint
CREATE TRIGGER `file_chunks_fts_insert` AFTER INSERT ON `file_chunks` BEGIN
  INSERT INTO `file_chunks_fts`(rowid, `folded`) VALUES (new.`id`, new.`folded`);
END;--> statement-breakpoint
CREATE TRIGGER `file_chunks_fts_delete` AFTER DELETE ON `file_chunks` BEGIN
  INSERT INTO `file_chunks_fts`(`file_chunks_fts`, rowid, `folded`) VALUES ('delete', old.`id`, old.`folded`);
END;--> statement-breakpoint
CREATE TRIGGER `file_chunks_fts_update` AFTER UPDATE ON `file_chunks` BEGIN
  INSERT INTO `file_chunks_fts`(`file_chunks_fts`, rowid, `folded`) VALUES ('delete', old.`id`, old.`folded`);
  INSERT INTO `file_chunks_fts`(rowid, `folded`) VALUES (new.`id`, new.`folded`);
END;
