import { stopChat } from "@/lib/chat/chat-service";
import { getDb } from "@/lib/db/client";
import { getConversation } from "@/lib/db/queries";
import { route } from "@/lib/http/responses";

export const dynamic = "force-dynamic";

/** Stops the active run: the Ollama request is aborted and the partial answer kept. */
export const POST = route(async (_request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const { id } = await params;
  getConversation(getDb(), { id });
  return Response.json({ stopping: true, ...stopChat(id) }, { status: 202 });
});
