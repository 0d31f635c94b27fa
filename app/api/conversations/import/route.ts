import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { getConfig } from "@/lib/env-config";
import { importConversations } from "@/lib/export/import-conversations";
import { takeImportSlot } from "@/lib/export/import-slots";
import { apiRoute } from "@/lib/http/api-route";
import { readBodyLimited } from "@/lib/http/body";

export const dynamic = "force-dynamic";

/**
 * The body is the file itself: one conversation's JSON export, or the ZIP of every conversation.
 * The import's slot is taken before the body is read: a refused one never holds its upload.
 */
export const POST = apiRoute(async (request: Request, _context: unknown, viewer) => {
  const config = getConfig();
  const ownerId = ownerOf(viewer);
  const release = takeImportSlot(ownerId, { perUser: config.MAX_IMPORTS_PER_USER, total: config.MAX_IMPORTS_TOTAL });
  try {
    const bytes = await readBodyLimited(request, config.IMPORT_MAX_MB * 1024 * 1024, "The import");
    return Response.json(await importConversations(await getDb(), { bytes, ownerId, config }));
  } finally {
    release();
  }
});
