ALTER TABLE "file_chunks" ADD COLUMN "grams" text DEFAULT '' NOT NULL;--> statement-breakpoint
-- The library index (docs/architecture.md, "The library index"): a GIN index over the tokens
-- lib/library/grams.ts writes (words of scripts that separate them; every character and pair of
-- characters of CJK runs), each an array element, so a term is exact element lookups. The trigram
-- index of 0006 stays for `word*`.
CREATE INDEX "file_chunks_grams_idx" ON "file_chunks" USING gin (string_to_array("grams", ' '));--> statement-breakpoint
-- Passages indexed before have no tokens: the start step indexes every file again.
UPDATE "files" SET "indexed_at" = NULL;
