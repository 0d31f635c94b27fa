ALTER TABLE "file_chunks" ADD COLUMN "grams" text DEFAULT '' NOT NULL;--> statement-breakpoint
-- The short-term index (docs/architecture.md, "The library index"): a GIN index over the tokens
-- lib/library/grams.ts writes for terms a trigram cannot look up (one or two characters), each an
-- array element, so a short term is one exact element lookup.
CREATE INDEX "file_chunks_grams_idx" ON "file_chunks" USING gin (string_to_array("grams", ' '));--> statement-breakpoint
-- Passages indexed before have no tokens: the start step indexes every file again.
UPDATE "files" SET "indexed_at" = NULL;
