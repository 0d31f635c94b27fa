-- SQLite's implicit rowid, made explicit: the store orders rows stored in the same millisecond by it
-- (lib/db/portable-sql.ts). Kept out of lib/db/schema-pg.ts, as SQLite's is out of lib/db/schema.ts.
ALTER TABLE "messages" ADD COLUMN "rowid" bigserial NOT NULL;--> statement-breakpoint
ALTER TABLE "interrupts" ADD COLUMN "rowid" bigserial NOT NULL;--> statement-breakpoint
ALTER TABLE "files" ADD COLUMN "rowid" bigserial NOT NULL;
