import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { deleteMemory, publicMemory, updateMemory } from "@/lib/db/memories";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { updateMemoryBody } from "../schema";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/** Another user's memory is "not found", exactly like a missing one. */
export const PATCH = apiRoute(async (request: Request, { params }: Context, viewer) => {
  const { id } = await params;
  const { text } = await parseJsonBody(request, updateMemoryBody);
  const memory = await updateMemory(await getDb(), { id, ownerId: ownerOf(viewer), text });
  return Response.json({ memory: publicMemory(memory) });
});

export const DELETE = apiRoute(async (_request: Request, { params }: Context, viewer) => {
  const { id } = await params;
  await deleteMemory(await getDb(), { id, ownerId: ownerOf(viewer) });
  return new Response(null, { status: 204 });
});
