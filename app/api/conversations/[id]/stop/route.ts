import { ownerOf } from "@/lib/auth/viewer";
import { stopChat } from "@/lib/chat/chat-service";
import { onRunOwner } from "@/lib/cluster/cluster";
import { getDb } from "@/lib/db/client";
import { getConversation } from "@/lib/db/conversations";
import { apiRoute } from "@/lib/http/api-route";

export const dynamic = "force-dynamic";

/**
 * Stops the active run: the Ollama request and running tools are aborted, the partial answer kept.
 * A run held by another app instance is stopped there (docs/cluster.md, "Several app instances").
 */
export const POST = apiRoute(async (_request: Request, { params }: { params: Promise<{ id: string }> }, viewer) => {
  const { id } = await params;
  await getConversation(await getDb(), { id, ownerId: ownerOf(viewer) });
  const stopped = await onRunOwner({ kind: "stop", conversationId: id }, () => stopChat(id));
  return Response.json({ stopping: true, ...stopped }, { status: 202 });
});
