-- The same index as SQLite's, whose searches join each passage to its file through it
-- (docs/architecture.md, "The library index").
CREATE INDEX "file_chunks_file_of" ON "file_chunks" USING btree ("id","file_id");--> statement-breakpoint
-- A CJK character's token now comes after its pair with the character before it, so a term's
-- tokens stand side by side in every passage holding it (lib/library/grams.ts): the start step
-- indexes every file again.
UPDATE "files" SET "indexed_at" = NULL;
