import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { deletePreset, updatePreset } from "@/lib/db/presets";
import { getConfig } from "@/lib/env-config";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { settingsLimits } from "../../conversations/schema";
import { presetPatch } from "../schema";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export const PATCH = apiRoute(async (request: Request, { params }: Context, viewer) => {
  const { id } = await params;
  const body = await parseJsonBody(request, presetPatch(settingsLimits(getConfig())));
  return Response.json({ preset: await updatePreset(await getDb(), { id, ...body, ownerId: ownerOf(viewer) }) });
});

export const DELETE = apiRoute(async (_request: Request, { params }: Context, viewer) => {
  const { id } = await params;
  await deletePreset(await getDb(), { id, ownerId: ownerOf(viewer) });
  return new Response(null, { status: 204 });
});
