import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { getConversation } from "@/lib/db/conversations";
import { discardInterrupt } from "@/lib/db/interrupts";
import { apiRoute } from "@/lib/http/api-route";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string; interruptId: string }> };

/** Discards an unsent follow-up: 204; 404 for one that is not this user's, 409 while its run may still read it. */
export const DELETE = apiRoute(async (_request: Request, { params }: Context, viewer) => {
  const { id, interruptId } = await params;
  const db = await getDb();
  await getConversation(db, { id, ownerId: ownerOf(viewer) });
  await discardInterrupt(db, { conversationId: id, id: interruptId });
  return new Response(null, { status: 204 });
});
