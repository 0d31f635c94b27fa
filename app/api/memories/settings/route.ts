import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { readMemoryPreferences, writeMemoryPreferences } from "@/lib/memory/preferences";
import { memorySettingsBody } from "../schema";

export const dynamic = "force-dynamic";

/** The viewer's own memory switches: memory on or off, and "ask before saving". */
export const GET = apiRoute(async (_request: Request, _context: unknown, viewer) =>
  Response.json({ settings: await readMemoryPreferences(await getDb(), { ownerId: ownerOf(viewer) }) }),
);

export const PATCH = apiRoute(async (request: Request, _context: unknown, viewer) => {
  const changes = await parseJsonBody(request, memorySettingsBody);
  const settings = await writeMemoryPreferences(await getDb(), { ownerId: ownerOf(viewer), changes });
  return Response.json({ settings });
});
