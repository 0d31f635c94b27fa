import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { listMemories, publicMemory } from "@/lib/db/memories";
import { contentDisposition } from "@/lib/files/sniff";
import { apiRoute } from "@/lib/http/api-route";

export const dynamic = "force-dynamic";

/** The viewer's memories as a JSON download. */
export const GET = apiRoute(async (_request: Request, _context: unknown, viewer) => {
  const rows = await listMemories(await getDb(), { ownerId: ownerOf(viewer) });
  const document = {
    format: "ollama-web.memories",
    version: 1,
    exportedAt: Date.now(),
    memories: rows.map(publicMemory),
  };
  return new Response(`${JSON.stringify(document, null, 2)}\n`, {
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": contentDisposition("memories.json"),
      "Cache-Control": "no-store",
    },
  });
});
