import { ownerOf } from "@/lib/auth/viewer";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { getDb } from "@/lib/db/client";
import { deleteProject, getProject, updateProject } from "@/lib/db/projects";
import { getConfig } from "@/lib/env-config";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody, parseWith } from "@/lib/http/responses";
import { deleteProjectQuery, projectPatch } from "../schema";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const GET = apiRoute(async (_request: Request, { params }: Context, viewer) => {
  const { id } = await params;
  return Response.json({ project: await getProject(await getDb(), { id, ownerId: ownerOf(viewer) }) });
});

export const PATCH = apiRoute(async (request: Request, { params }: Context, viewer) => {
  const { id } = await params;
  const body = await parseJsonBody(request, projectPatch(getConfig().MAX_INSTRUCTIONS_CHARS));
  return Response.json({ project: await updateProject(await getDb(), { id, ...body, ownerId: ownerOf(viewer) }) });
});

export const DELETE = apiRoute(async (request: Request, { params }: Context, viewer) => {
  const { id } = await params;
  const query = parseWith(deleteProjectQuery, Object.fromEntries(new URL(request.url).searchParams));
  await deleteProject(await getDb(), {
    id,
    ownerId: ownerOf(viewer),
    withConversations: query.conversations,
    runsHere: getLiveRuns(),
  });
  return new Response(null, { status: 204 });
});
