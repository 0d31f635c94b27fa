-- A run whose synthesis failed before any of it streamed stores the tool loop's draft as its answer, marked so.
ALTER TABLE `runs` ADD `fallback` integer DEFAULT false NOT NULL;