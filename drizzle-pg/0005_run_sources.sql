CREATE TABLE "citation_reports" (
	"message_id" text PRIMARY KEY NOT NULL,
	"report" jsonb NOT NULL,
	"checked_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "run_source_parts" (
	"run_id" text NOT NULL,
	"n" integer NOT NULL,
	"seq" integer NOT NULL,
	"text" text NOT NULL,
	"page_first" integer,
	"page_last" integer,
	"page_total" integer,
	CONSTRAINT "run_source_parts_run_id_n_seq_pk" PRIMARY KEY("run_id","n","seq")
);
--> statement-breakpoint
CREATE TABLE "run_sources" (
	"run_id" text NOT NULL,
	"n" integer NOT NULL,
	"url" text NOT NULL,
	"title" text NOT NULL,
	"retrieved_at" bigint NOT NULL,
	"content_hash" text NOT NULL,
	"chars" integer NOT NULL,
	CONSTRAINT "run_sources_run_id_n_pk" PRIMARY KEY("run_id","n")
);
--> statement-breakpoint
ALTER TABLE "citation_reports" ADD CONSTRAINT "citation_reports_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "run_source_parts" ADD CONSTRAINT "run_source_parts_run_id_n_run_sources_run_id_n_fk" FOREIGN KEY ("run_id","n") REFERENCES "public"."run_sources"("run_id","n") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "run_sources" ADD CONSTRAINT "run_sources_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;