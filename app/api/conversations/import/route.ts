import { ownerOf } from "@/lib/auth/viewer";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { importConversations } from "@/lib/export/import-conversations";
import { apiRoute } from "@/lib/http/api-route";
import { readBodyLimited } from "@/lib/http/body";

export const dynamic = "force-dynamic";

/** The body is the file itself: one conversation's JSON export, or the ZIP of every conversation. */
export const POST = apiRoute(async (request: Request, _context: unknown, viewer) => {
  const config = getConfig();
  const bytes = await readBodyLimited(request, config.IMPORT_MAX_MB * 1024 * 1024, "The import");
  const report = await importConversations(await getDb(), { bytes, ownerId: ownerOf(viewer), config });
  return Response.json(report);
});
