-- MCP tools that act need consent (docs/security.md, "MCP tools"): the admin's approval policy per server and
-- per tool, and the tools a user let run without asking in one conversation ("always for this tool in this chat").
CREATE TABLE `tool_approvals` (
	`conversation_id` text NOT NULL,
	`tool` text NOT NULL,
	`approved_by` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`conversation_id`, `tool`),
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `mcp_servers` ADD `tool_approval` text DEFAULT '{"default":null,"tools":{}}' NOT NULL;
