import { getDb } from "@/lib/db/client";
import { apiRoute } from "@/lib/http/api-route";
import { listToolGroups } from "@/lib/mcp/server-hub";

export const dynamic = "force-dynamic";

/** The tool groups a conversation can switch: the built-in web tools and each enabled MCP server. */
export const GET = apiRoute(async () => Response.json({ groups: await listToolGroups(await getDb()) }));
