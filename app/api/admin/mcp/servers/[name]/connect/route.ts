import { getDb } from "@/lib/db/client";
import { serverNotFound } from "@/lib/db/mcp-servers";
import { AppError } from "@/lib/errors";
import { apiRoute } from "@/lib/http/api-route";
import { serverView } from "@/lib/mcp/admin";
import { getServerMcp } from "@/lib/mcp/server-hub";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ name: string }> };

/** Admin: "Test": connects (or reconnects) the server now and answers with its state and tools. */
export const POST = apiRoute(
  async (_request: Request, { params }: Context) => {
    const { name } = await params;
    const mcp = await getServerMcp(await getDb());
    const server = mcp.servers.find((s) => s.name === name);
    if (!server) throw serverNotFound(name);
    if (!server.enabled) {
      throw new AppError("conflict:mcp_server_disabled", `Enable ${name} before testing it.`, { details: { name } });
    }
    return Response.json({ server: serverView(server, await mcp.hub.connect(name)) });
  },
  { admin: true },
);
