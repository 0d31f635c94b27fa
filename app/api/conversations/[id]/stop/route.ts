import { ownerOf } from "@/lib/auth/viewer";
import { stopChat } from "@/lib/chat/chat-service";
import { getDb } from "@/lib/db/client";
import { getConversation } from "@/lib/db/queries";
import { apiRoute } from "@/lib/http/api-route";

export const dynamic = "force-dynamic";

/** Stops the active run: the Ollama request and running tools are aborted, the partial answer kept. */
export const POST = apiRoute(async (_request: Request, { params }: { params: Promise<{ id: string }> }, viewer) => {
  const { id } = await params;
  await getConversation(await getDb(), { id, ownerId: ownerOf(viewer) });
  return Response.json({ stopping: true, ...stopChat(id) }, { status: 202 });
});
