import { getDb } from "@/lib/db/client";
import { createConversation, listConversations } from "@/lib/db/queries";
import { parseJsonBody, parseWith, route } from "@/lib/http/responses";
import { createConversationBody, listConversationsQuery } from "./schema";

export const dynamic = "force-dynamic";

export const GET = route(async (request: Request) => {
  const params = Object.fromEntries(new URL(request.url).searchParams);
  const query = parseWith(listConversationsQuery, params);
  return Response.json(listConversations(getDb(), query));
});

export const POST = route(async (request: Request) => {
  const body = await parseJsonBody(request, createConversationBody);
  return Response.json({ conversation: createConversation(getDb(), body) }, { status: 201 });
});
