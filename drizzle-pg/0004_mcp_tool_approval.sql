-- MCP tools that act need consent (docs/security.md, "MCP tools"): the admin's approval policy per server and
-- per tool, and the tools a user let run without asking in one conversation ("always for this tool in this chat").
CREATE TABLE "tool_approvals" (
	"conversation_id" text NOT NULL,
	"tool" text NOT NULL,
	"approved_by" text,
	"created_at" bigint NOT NULL,
	CONSTRAINT "tool_approvals_conversation_id_tool_pk" PRIMARY KEY("conversation_id","tool")
);
--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "tool_approval" jsonb DEFAULT '{"default":null,"tools":{}}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "tool_approvals" ADD CONSTRAINT "tool_approvals_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;
