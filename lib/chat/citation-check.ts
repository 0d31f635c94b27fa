import "server-only";
import { roleModel } from "@/lib/admin-settings";
import { checkCitations } from "@/lib/citations/check";
import { citedSentences } from "@/lib/citations/claims";
import { modelVerifier } from "@/lib/citations/verifier";
import { saveCitationReport } from "@/lib/db/citation-reports";
import type { Db } from "@/lib/db/client";
import { getConversation, type OwnerId } from "@/lib/db/conversations";
import { messageTree } from "@/lib/db/messages";
import { runSourcesWhole } from "@/lib/db/run-sources";
import { getRun } from "@/lib/db/runs";
import { getConfig } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { getLLM } from "@/lib/llm/registry";
import type { CitationReport } from "@/lib/protocol/citations";
import { processSingleton } from "@/lib/util/process-singleton";
import { citationVerifySlots } from "./verify-slots";

/**
 * "Check citations" (docs/research.md, "Checking citations"): the verifier judges an answer's
 * citations against the sources its run stored, on the user's request, and its report replaces
 * the one stored with the message (the finder's, or an earlier check's).
 */

/** The messages whose citations this instance is checking now: a second check of one waits for nothing, it is refused. */
const checking = processSingleton("citationChecks", () => new Set<string>());

/**
 * Checks the citations of answer `messageId` with the fast role's model (the answer's own model
 * when no fast model is configured) and stores the report. 404 for a conversation or message that
 * is not the user's; 400 for a message that is not an answer written by a run; 409 while the same
 * message is being checked. An answer that cites nothing gets an empty report, and none is stored.
 */
export async function checkMessageCitations(
  db: Db,
  options: { conversationId: string; ownerId: OwnerId; messageId: string; signal?: AbortSignal },
): Promise<CitationReport> {
  const { conversationId, messageId, signal } = options;
  await getConversation(db, { id: conversationId, ownerId: options.ownerId });
  const message = (await messageTree(db, { conversationId })).get(messageId);
  if (!message) throw new AppError("not_found:message", `Message ${messageId} not found in this conversation.`);
  if (message.role !== "assistant" || !message.runId) {
    throw new AppError("bad_request:not_an_answer", "Only an answer written by a run has citations to check.");
  }
  // Nothing to judge: no model is asked, and nothing is stored.
  if (citedSentences(message.content).length === 0) return { checks: [], checkedAt: Date.now() };
  const runId = message.runId;
  const running = checking();
  if (running.has(messageId)) {
    throw new AppError(
      "conflict:citations_checking",
      "The citations of this answer are being checked. Wait for that check to finish.",
    );
  }
  running.add(messageId);
  try {
    const sources = await runSourcesWhole(db, { runId });
    const run = await getRun(db, { id: runId });
    const fast = await roleModel(db, "fast");
    const llm = await getLLM(fast ?? run.model, {}, fast ? "fast" : "general");
    const report = await checkCitations({
      answer: message.content,
      sources,
      verifier: modelVerifier(llm),
      concurrency: getConfig().CITATION_VERIFY_CONCURRENCY,
      slots: citationVerifySlots(),
      signal,
    });
    await saveCitationReport(db, { messageId, report });
    return report;
  } finally {
    running.delete(messageId);
  }
}
