import { ownerOf } from "@/lib/auth/viewer";
import { startChat } from "@/lib/chat/chat-service";
import { getDb } from "@/lib/db/client";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { sseResponse } from "@/lib/http/sse";
import { chatBody } from "./schema";

export const dynamic = "force-dynamic";

/**
 * Starts a run and streams its events. Errors before the stream starts are JSON
 * responses; after, they are `error` events. The client leaving does not stop the run.
 */
export const POST = apiRoute(async (request: Request, _context: unknown, viewer) => {
  const body = await parseJsonBody(request, chatBody, { maxBytes: 512 * 1024 });
  const live = await startChat(await getDb(), { ...body, ownerId: ownerOf(viewer) });
  return sseResponse((send, close) => live.subscribe(send, close));
});
