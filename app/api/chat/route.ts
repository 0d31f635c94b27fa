import { startChat } from "@/lib/chat/chat-service";
import { getDb } from "@/lib/db/client";
import { parseJsonBody, route } from "@/lib/http/responses";
import { sseResponse } from "@/lib/http/sse";
import { chatBody } from "./schema";

export const dynamic = "force-dynamic";

/**
 * Starts a run and streams its events (SPEC §12). Errors before the stream starts are JSON
 * responses; after, they are `error` events. The client leaving does not stop the run.
 */
export const POST = route(async (request: Request) => {
  const body = await parseJsonBody(request, chatBody);
  const live = await startChat(getDb(), body);
  return sseResponse((send, close) => live.subscribe(send, close));
});
