ALTER TABLE `file_chunks` ADD `grams` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- The short-term index (docs/architecture.md, "The library index"): FTS5 over file_chunks.grams, the
-- tokens lib/library/grams.ts writes for terms a trigram cannot look up (one or two characters).
-- Rowids only (detail=none): a short term is one token, never a phrase. Kept by triggers, like
-- file_chunks_fts.
CREATE VIRTUAL TABLE `file_chunks_grams` USING fts5(`grams`, content='file_chunks', content_rowid='id', detail='none', tokenize="unicode61 remove_diacritics 0 categories 'L* N* M* Co'");--> statement-breakpoint
CREATE TRIGGER `file_chunks_grams_insert` AFTER INSERT ON `file_chunks` BEGIN
  INSERT INTO `file_chunks_grams`(rowid, `grams`) VALUES (new.`id`, new.`grams`);
END;--> statement-breakpoint
CREATE TRIGGER `file_chunks_grams_delete` AFTER DELETE ON `file_chunks` BEGIN
  INSERT INTO `file_chunks_grams`(`file_chunks_grams`, rowid, `grams`) VALUES ('delete', old.`id`, old.`grams`);
END;--> statement-breakpoint
CREATE TRIGGER `file_chunks_grams_update` AFTER UPDATE ON `file_chunks` BEGIN
  INSERT INTO `file_chunks_grams`(`file_chunks_grams`, rowid, `grams`) VALUES ('delete', old.`id`, old.`grams`);
  INSERT INTO `file_chunks_grams`(rowid, `grams`) VALUES (new.`id`, new.`grams`);
END;--> statement-breakpoint
-- Passages indexed before have no tokens: the start step indexes every file again.
UPDATE `files` SET `indexed_at` = NULL;
