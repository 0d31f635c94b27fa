import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { createConversation, listConversations } from "@/lib/db/queries";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody, parseWith } from "@/lib/http/responses";
import { createConversationBody, listConversationsQuery } from "./schema";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async (request: Request, _context: unknown, viewer) => {
  const params = Object.fromEntries(new URL(request.url).searchParams);
  const query = parseWith(listConversationsQuery, params);
  return Response.json(listConversations(getDb(), { ...query, ownerId: ownerOf(viewer) }));
});

export const POST = apiRoute(async (request: Request, _context: unknown, viewer) => {
  const body = await parseJsonBody(request, createConversationBody);
  return Response.json(
    { conversation: createConversation(getDb(), { ...body, ownerId: ownerOf(viewer) }) },
    { status: 201 },
  );
});
