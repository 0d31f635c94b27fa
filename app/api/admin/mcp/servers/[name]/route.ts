import { getDb } from "@/lib/db/client";
import { removeServer, updateServer } from "@/lib/db/mcp-servers";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { editableServer, refuseStdioFromUi, serverView } from "@/lib/mcp/admin";
import { reconfigureServerMcp } from "@/lib/mcp/server-hub";
import { updateServerBody } from "../../schema";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ name: string }> };

/**
 * Admin: enables or disables a stored server, changes its transport, or switches its tools. A stdio
 * transport (a new or a changed command, arguments, environment) needs MCP_STDIO_FROM_UI=1 (403).
 */
export const PATCH = apiRoute(
  async (request: Request, { params }: Context) => {
    const { name } = await params;
    const db = await getDb();
    const body = await parseJsonBody(request, updateServerBody);
    await editableServer(db, name);
    if (body.transport) refuseStdioFromUi([body.transport]);
    const server = await updateServer(db, { name, ...body });
    const mcp = await reconfigureServerMcp(db);
    const state = mcp.hub.states().find((s) => s.name === name);
    return Response.json({ server: serverView(server, state, mcp.shadowed.includes(name)) });
  },
  { admin: true },
);

/** Admin: removes a stored server (its connection is closed). */
export const DELETE = apiRoute(
  async (_request: Request, { params }: Context) => {
    const { name } = await params;
    const db = await getDb();
    await editableServer(db, name);
    await removeServer(db, { name });
    await reconfigureServerMcp(db);
    return new Response(null, { status: 204 });
  },
  { admin: true },
);
