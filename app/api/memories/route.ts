import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { createMemory, listMemories, publicMemory } from "@/lib/db/memories";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { createMemoryBody } from "./schema";

export const dynamic = "force-dynamic";

/** The viewer's memories (docs/architecture.md, "Projects and memory"), oldest first; nobody else's. */
export const GET = apiRoute(async (_request: Request, _context: unknown, viewer) => {
  const rows = await listMemories(await getDb(), { ownerId: ownerOf(viewer) });
  return Response.json({ memories: rows.map(publicMemory) });
});

/** A memory the user writes, or saves from an answer's proposal: that answer or run must be in one of their conversations. */
export const POST = apiRoute(async (request: Request, _context: unknown, viewer) => {
  const { text, messageId, runId } = await parseJsonBody(request, createMemoryBody);
  const memory = await createMemory(await getDb(), { ownerId: ownerOf(viewer), text, messageId, runId });
  return Response.json({ memory: publicMemory(memory) }, { status: 201 });
});
