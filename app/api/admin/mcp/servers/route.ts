import { getDb } from "@/lib/db/client";
import { addServer, listStoredServers } from "@/lib/db/mcp-servers";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { listServerViews, refuseFileName, refuseStdioFromUi, serverView } from "@/lib/mcp/admin";
import { reconfigureServerMcp } from "@/lib/mcp/server-hub";
import { addServerBody } from "../schema";

export const dynamic = "force-dynamic";

/** Admin: every MCP server (the file's and the stored ones) with its connection state. */
export const GET = apiRoute(
  async () => {
    const db = await getDb();
    return Response.json(await listServerViews(db, await listStoredServers(db)));
  },
  { admin: true },
);

/** Admin: adds a server; it connects when first used or tested. A stdio one needs MCP_STDIO_FROM_UI=1 (403). */
export const POST = apiRoute(
  async (request: Request) => {
    const body = await parseJsonBody(request, addServerBody);
    refuseStdioFromUi([body.transport]);
    const db = await getDb();
    await refuseFileName(db, body.name);
    const server = await addServer(db, body);
    const state = (await reconfigureServerMcp(db)).hub.states().find((s) => s.name === server.name);
    return Response.json({ server: serverView(server, state) }, { status: 201 });
  },
  { admin: true },
);
