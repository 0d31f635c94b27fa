import { ownerOf } from "@/lib/auth/viewer";
import { checkMessageCitations } from "@/lib/chat/citation-check";
import { getDb } from "@/lib/db/client";
import { apiRoute } from "@/lib/http/api-route";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string; messageId: string }> };

/**
 * "Check citations": the verifier judges the answer's citations against its run's sources; the
 * new report (`CitationReport`) replaces the stored one and is returned (docs/research.md, "Checking citations").
 */
export const POST = apiRoute(async (request: Request, { params }: Context, viewer) => {
  const { id, messageId } = await params;
  const report = await checkMessageCitations(await getDb(), {
    conversationId: id,
    ownerId: ownerOf(viewer),
    messageId,
    signal: request.signal,
  });
  return Response.json(report);
});
