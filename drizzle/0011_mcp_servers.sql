-- MCP servers configured on the settings page, and the tool groups a conversation switched off.
CREATE TABLE `mcp_servers` (
	`name` text PRIMARY KEY NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`transport` text NOT NULL,
	`disabled_tools` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `conversations` ADD `disabled_tool_groups` text DEFAULT '[]' NOT NULL;
