import "server-only";
import type { ResearchStart } from "@/lib/agent/research/research-agent";
import { finishedSections } from "@/lib/agent/research/resume";
import type { Db } from "@/lib/db/client";
import { listRunSources } from "@/lib/db/run-sources";
import { getRun, listRunEvents } from "@/lib/db/runs";
import type { Message } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { detectLanguage } from "@/lib/prompts";

/**
 * Resuming a research run a restart interrupted (docs/research.md, "Resuming"): the brief it stored
 * as gathering began, the sections it finished (cut from its stored answer) and its sources. The
 * resumed run researches that brief from there; its sources start as copies of these (`copyRunSources`).
 */
export async function resumedResearch(
  db: Db,
  { answer, question }: { answer: Message; question: Message },
): Promise<{ start: ResearchStart; fromRunId: string }> {
  const run = answer.runId ? await getRun(db, { id: answer.runId }) : null;
  const notResearch = () =>
    new AppError("bad_request:not_research", `Message ${answer.id} is not the report of a research run.`);
  if (run?.mode !== "research") throw notResearch();
  const events = await listRunEvents(db, { runId: run.id });
  const started = events.findLast((event) => event.event === "research_start");
  // A run that only proposed a brief (or was interrupted making it) researched nothing: regenerate proposes one again.
  if (started?.event !== "research_start") throw notResearch();
  if (run.status !== "interrupted") {
    throw new AppError("conflict:not_interrupted", `The research run of message ${answer.id} was not interrupted.`, {
      details: { status: run.status },
    });
  }
  const progress = events.findLast((event) => event.event === "research");
  const { brief } = started.data;
  const sections = finishedSections(
    brief,
    answer.content,
    progress?.event === "research" ? progress.data : null,
    detectLanguage(question.content),
  );
  const sources = (await listRunSources(db, { runId: run.id })).map(({ n, url, title, retrievedAt }) => ({
    n,
    url,
    title,
    retrievedAt,
  }));
  return { start: { brief, kept: { sections, sources } }, fromRunId: run.id };
}
