import { getLiveRuns } from "@/lib/chat/chat-service";
import { getDb } from "@/lib/db/client";
import { deleteConversation, getConversationDetail, updateConversation } from "@/lib/db/queries";
import { AppError } from "@/lib/errors";
import { parseJsonBody, route } from "@/lib/http/responses";
import { updateConversationBody } from "../schema";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const GET = route(async (_request: Request, { params }: Context) => {
  const { id } = await params;
  return Response.json(getConversationDetail(getDb(), { id }));
});

export const PATCH = route(async (request: Request, { params }: Context) => {
  const { id } = await params;
  const body = await parseJsonBody(request, updateConversationBody);
  return Response.json({ conversation: updateConversation(getDb(), { id, ...body }) });
});

export const DELETE = route(async (_request: Request, { params }: Context) => {
  const { id } = await params;
  if (getLiveRuns().forConversation(id)) {
    throw new AppError("conflict:run_active", "Stop the running answer before deleting this conversation.");
  }
  deleteConversation(getDb(), { id });
  return new Response(null, { status: 204 });
});
