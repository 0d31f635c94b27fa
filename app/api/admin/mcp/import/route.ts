import { getDb } from "@/lib/db/client";
import { importServers } from "@/lib/db/mcp-servers";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { parseImport, refuseStdioFromUi } from "@/lib/mcp/admin";
import { reconfigureServerMcp } from "@/lib/mcp/server-hub";
import { importBody } from "../schema";

export const dynamic = "force-dynamic";

/**
 * Admin: imports a pasted `{"mcpServers": {...}}` document. Every server is checked before any is
 * stored; a name already stored is replaced only when `replace` names it (409 otherwise). A document
 * with a stdio server is refused whole (403) unless MCP_STDIO_FROM_UI=1.
 */
export const POST = apiRoute(
  async (request: Request) => {
    const body = await parseJsonBody(request, importBody);
    const db = await getDb();
    const servers = await parseImport(db, body.config);
    refuseStdioFromUi(servers.map((server) => server.transport));
    const result = await importServers(db, { servers, replace: body.replace });
    await reconfigureServerMcp(db);
    return Response.json(result, { status: 201 });
  },
  { admin: true },
);
