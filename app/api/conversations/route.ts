import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { createConversation, listConversations } from "@/lib/db/conversations";
import { newChatPreset } from "@/lib/db/presets";
import { getProject } from "@/lib/db/projects";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody, parseWith } from "@/lib/http/responses";
import { createConversationBody, listConversationsQuery } from "./schema";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async (request: Request, _context: unknown, viewer) => {
  const params = Object.fromEntries(new URL(request.url).searchParams);
  const { project, ...query } = parseWith(listConversationsQuery, params);
  const db = await getDb();
  const ownerId = ownerOf(viewer);
  // Another user's project is "not found", exactly like a missing one.
  const projectId = project === undefined ? undefined : (await getProject(db, { id: project, ownerId })).id;
  return Response.json(await listConversations(db, { ...query, projectId, ownerId }));
});

export const POST = apiRoute(async (request: Request, _context: unknown, viewer) => {
  const { presetId, projectId, ...body } = await parseJsonBody(request, createConversationBody);
  const db = await getDb();
  const ownerId = ownerOf(viewer);
  // In a project, its preset and model come before the personal default; the request's before both.
  const project = projectId === undefined ? undefined : await getProject(db, { id: projectId, ownerId });
  const preset = await newChatPreset(db, {
    ownerId,
    presetId: presetId !== undefined ? presetId : (project?.presetId ?? undefined),
  });
  return Response.json(
    {
      conversation: await createConversation(db, {
        ...body,
        projectId: project?.id ?? null,
        model: body.model ?? project?.model ?? preset.model,
        settings: preset.settings,
        ownerId,
      }),
    },
    { status: 201 },
  );
});
