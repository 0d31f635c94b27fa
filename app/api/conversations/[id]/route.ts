import { ownerOf } from "@/lib/auth/viewer";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { getDb } from "@/lib/db/client";
import { getConversationDetail } from "@/lib/db/conversation-detail";
import { deleteConversation, getConversation, updateConversation } from "@/lib/db/conversations";
import { listHeldInterrupts } from "@/lib/db/interrupts";
import { getProject } from "@/lib/db/projects";
import { getConfig } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { settingsLimits, updateConversationBody } from "../schema";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const GET = apiRoute(async (_request: Request, { params }: Context, viewer) => {
  const { id } = await params;
  const db = await getDb();
  const detail = await getConversationDetail(db, { id, ownerId: ownerOf(viewer) });
  return Response.json({ ...detail, interrupts: await listHeldInterrupts(db, { conversationId: id }) });
});

export const PATCH = apiRoute(async (request: Request, { params }: Context, viewer) => {
  const { id } = await params;
  const body = await parseJsonBody(request, updateConversationBody(settingsLimits(getConfig())));
  const db = await getDb();
  const ownerId = ownerOf(viewer);
  if (body.projectId) await getProject(db, { id: body.projectId, ownerId });
  return Response.json({ conversation: await updateConversation(db, { id, ...body, ownerId }) });
});

export const DELETE = apiRoute(async (_request: Request, { params }: Context, viewer) => {
  const { id } = await params;
  const db = await getDb();
  await getConversation(db, { id, ownerId: ownerOf(viewer) });
  if (getLiveRuns().forConversation(id)) {
    throw new AppError("conflict:run_active", "Stop the running answer before deleting this conversation.");
  }
  await deleteConversation(db, { id, ownerId: ownerOf(viewer), runsHere: getLiveRuns() });
  return new Response(null, { status: 204 });
});
