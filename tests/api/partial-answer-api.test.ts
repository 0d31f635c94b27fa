import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { POST as stop } from "@/app/api/conversations/[id]/stop/route";
import { getDb } from "@/lib/db/client";
import { runs } from "@/lib/db/schema";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import {
  jsonRequest,
  newConversation,
  type ParsedEvent,
  params,
  readEvents,
  setupAppEnv,
  waitIdle,
} from "@/tests/support/app-env";

/**
 * While an answer streams, the text so far is saved on the run's row (`runs.partial_answer`), so a
 * crash or a shutdown keeps it (docs/architecture.md, "The run's lifecycle"): a started run's answer
 * stream is wired to the store.
 */

const fake = setupFakeOllama();
setupAppEnv(fake);

async function partialAnswer(runId: string): Promise<string | null> {
  const [row] = await (await getDb()).select().from(runs).where(eq(runs.id, runId)).limit(1);
  return row?.status === "running" ? row.partialAnswer : null;
}

describe("the answer saved as it streams", () => {
  it("a run streaming for longer than the save interval has its text so far on its row, a prefix of the answer", async () => {
    const conversationId = await newConversation();
    const words = Array.from({ length: 40 }, (_, i) => `p${i} `);
    fake().script({ chunks: words, chunkDelayMs: 60 });
    const response = await chat(jsonRequest("/api/chat", "POST", { conversationId, message: "a long answer" }));
    expect(response.status).toBe(200);
    let runId = "";
    let saved: string | null = null;
    const events: ParsedEvent[] = await readEvents(response, (event) => {
      if (event.event === "run") runId = String(event.data.runId);
      return event.event === "answer" && event.data.status === "delta";
    });
    expect(events.at(-1)?.event).toBe("answer");
    await expect
      .poll(
        async () => {
          saved = await partialAnswer(runId);
          return saved;
        },
        { timeout: 5000, interval: 50 },
      )
      .toMatch(/^p0 p1 /);
    expect(words.join("").startsWith(saved ?? "-")).toBe(true);
    await stop(jsonRequest("", "POST"), params({ id: conversationId }));
    await waitIdle(fake(), conversationId);
  });
});
