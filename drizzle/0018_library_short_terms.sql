ALTER TABLE `file_chunks` ADD `grams` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- The library index (docs/architecture.md, "The library index"): FTS5 over file_chunks.grams, the
-- tokens lib/library/grams.ts writes (words of scripts that separate them; every character and pair
-- of characters of CJK runs), ranked by bm25(); phrases and longer CJK terms are checked against the
-- text. Prefix indexes for `word*`. Kept by triggers, so a file's passages leave it with the file.
-- It replaces the trigram table of 0017, whose position lists of common trigrams a rare word had to
-- read whole.
DROP TRIGGER `file_chunks_fts_insert`;--> statement-breakpoint
DROP TRIGGER `file_chunks_fts_delete`;--> statement-breakpoint
DROP TRIGGER `file_chunks_fts_update`;--> statement-breakpoint
DROP TABLE `file_chunks_fts`;--> statement-breakpoint
CREATE VIRTUAL TABLE `file_chunks_grams` USING fts5(`grams`, content='file_chunks', content_rowid='id', prefix='1 2 3', tokenize="unicode61 remove_diacritics 2 categories 'L* N* M* Co'");--> statement-breakpoint
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
-- Passages indexed before have no tokens yet; the table must know their rows all the same (its
-- triggers delete a row's tokens when the row goes).
INSERT INTO `file_chunks_grams`(`file_chunks_grams`) VALUES ('rebuild');--> statement-breakpoint
-- Passages indexed before have no tokens: the start step indexes every file again.
UPDATE `files` SET `indexed_at` = NULL;
