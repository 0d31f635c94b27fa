import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { dismissedProposals, dismissProposal } from "@/lib/db/memory-dismissals";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody, parseWith } from "@/lib/http/responses";
import { dismissalsQuery, dismissProposalBody } from "../schema";

export const dynamic = "force-dynamic";

/** The texts of a run's `remember` proposals the viewer dismissed; another user's run is not found. */
export const GET = apiRoute(async (request: Request, _context: unknown, viewer) => {
  const { runId } = parseWith(dismissalsQuery, Object.fromEntries(new URL(request.url).searchParams));
  return Response.json({ dismissed: await dismissedProposals(await getDb(), { ownerId: ownerOf(viewer), runId }) });
});

/** Dismisses a proposal of `remember` (docs/architecture.md, "Projects and memory"): its answer shows it so from then on. */
export const POST = apiRoute(async (request: Request, _context: unknown, viewer) => {
  const { runId, text } = await parseJsonBody(request, dismissProposalBody);
  await dismissProposal(await getDb(), { ownerId: ownerOf(viewer), runId, text });
  return new Response(null, { status: 204 });
});
