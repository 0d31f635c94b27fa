-- Memory (docs/architecture.md, "Projects and memory"): a memory names the run that proposed it, so one
-- saved while its answer still streams names the answer once stored; the proposals a user dismissed.
CREATE TABLE "memory_dismissals" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text,
	"run_id" text NOT NULL,
	"text" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "run_id" text;--> statement-breakpoint
ALTER TABLE "memory_dismissals" ADD CONSTRAINT "memory_dismissals_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_dismissals" ADD CONSTRAINT "memory_dismissals_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "memory_dismissals_run_idx" ON "memory_dismissals" USING btree ("run_id");--> statement-breakpoint
ALTER TABLE "memories" ADD CONSTRAINT "memories_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "memories_run_idx" ON "memories" USING btree ("run_id");