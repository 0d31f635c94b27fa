-- `word*` on PostgreSQL (docs/architecture.md, "The library index"): the starts of three to six
-- characters of each word among a passage's tokens (CJK tokens, of one or two characters, and the
-- mark have none), in a GIN index, so a prefix of that length is an exact lookup and a longer one
-- is narrowed by its first six characters. It replaces the trigram index on the text, whose
-- matches of a common prefix each had to be checked against the passage's tokens.
CREATE FUNCTION library_word_starts(grams text) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$
    SELECT coalesce(array_agg(DISTINCT left(word, size)), '{}')
      FROM unnest(string_to_array(grams, ' ')) AS word,
           generate_series(3, least(6, char_length(word))) AS size
  $$;--> statement-breakpoint
CREATE INDEX "file_chunks_word_starts_idx" ON "file_chunks" USING gin (library_word_starts("grams"));--> statement-breakpoint
DROP INDEX IF EXISTS "file_chunks_folded_trgm_idx";
