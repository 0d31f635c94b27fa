import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { createPreset, listPresets } from "@/lib/db/presets";
import { getConfig } from "@/lib/env-config";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { settingsLimits } from "../conversations/schema";
import { presetBody } from "./schema";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async (_request: Request, _context: unknown, viewer) =>
  Response.json({ presets: await listPresets(await getDb(), { ownerId: ownerOf(viewer) }) }),
);

export const POST = apiRoute(async (request: Request, _context: unknown, viewer) => {
  const body = await parseJsonBody(request, presetBody(settingsLimits(getConfig())));
  return Response.json(
    { preset: await createPreset(await getDb(), { ...body, ownerId: ownerOf(viewer) }) },
    { status: 201 },
  );
});
