import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { getConfig } from "@/lib/env-config";
import { fileLimits, fileUsage } from "@/lib/files/quota";
import { apiRoute } from "@/lib/http/api-route";
import { parseWith } from "@/lib/http/responses";
import { fileUsageQuery } from "./schema";

export const dynamic = "force-dynamic";

/** What the viewer's files use of their quotas: storage in all, and one conversation's or project's file count when named. */
export const GET = apiRoute(async (request: Request, _context: unknown, viewer) => {
  const query = parseWith(fileUsageQuery, Object.fromEntries(new URL(request.url).searchParams));
  const usage = await fileUsage(await getDb(), {
    ownerId: ownerOf(viewer),
    conversationId: query.conversation,
    projectId: query.project,
    limits: fileLimits(getConfig()),
  });
  return Response.json(usage, { headers: { "Cache-Control": "private, no-store" } });
});
