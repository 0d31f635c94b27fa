import { describe, expect, it, vi } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { readSse } from "@/lib/client/sse";
import { getDb } from "@/lib/db/client";
import * as runs from "@/lib/db/runs";
import * as unended from "@/lib/db/unended-runs";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { jsonRequest, newConversation, setupAppEnv } from "@/tests/support/app-env";

/**
 * A run whose end (`finishRun`) cannot be stored for another reason than a busy database still ends
 * for its client with an `error` event, and its row does not stay `running`: the conversation's
 * next turn starts.
 */

vi.mock("@/lib/db/runs", async (original) => {
  const actual = await original<typeof import("@/lib/db/runs")>();
  return { ...actual, finishRun: vi.fn(actual.finishRun) };
});

vi.mock("@/lib/db/unended-runs", async (original) => {
  const actual = await original<typeof import("@/lib/db/unended-runs")>();
  return { ...actual, failUnendedRun: vi.fn(actual.failUnendedRun) };
});

const fake = setupFakeOllama();
setupAppEnv(fake);

async function send(conversationId: string, message: string) {
  const response = await chat(jsonRequest("/api/chat", "POST", { conversationId, message }));
  const events: { event: string; data: Record<string, unknown> }[] = [];
  if (response.status === 200 && response.body) {
    for await (const frame of readSse(response.body)) {
      events.push({ event: frame.event, data: JSON.parse(frame.data) as Record<string, unknown> });
    }
  }
  return { status: response.status, events };
}

describe("a run whose end could not be stored", () => {
  it("ends for its client with an error event, and the conversation's next turn starts", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    vi.mocked(runs.finishRun).mockRejectedValueOnce(new Error("FOREIGN KEY constraint failed"));
    const conversationId = await newConversation();
    fake().script({ content: "First answer" });
    const failed = await send(conversationId, "First question");

    expect(failed.status).toBe(200);
    const error = failed.events.find((event) => event.event === "error");
    expect(error?.data).toMatchObject({ code: "internal" });
    expect(String(error?.data.message)).toMatch(/could not be saved: FOREIGN KEY constraint failed/);
    expect(failed.events.map((event) => event.event)).not.toContain("done");
    const runId = failed.events.find((event) => event.event === "run")?.data.runId as string;
    const run = await runs.getRun(await getDb(), { id: runId });
    expect(run).toMatchObject({ status: "error" });
    expect(run.error).toMatch(/could not be saved/);

    fake().script({ content: "Second answer" });
    const next = await send(conversationId, "Second question");
    expect(next.status).toBe(200);
    expect(next.events.at(-1)?.event).toBe("done");
  });

  it("when even marking it failed fails every retry, the conversation's next start marks it failed and goes on", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    vi.mocked(runs.finishRun).mockRejectedValueOnce(new Error("disk I/O error"));
    const markFailed = vi.mocked(unended.failUnendedRun);
    markFailed.mockClear();
    for (let attempt = 0; attempt < 4; attempt++) markFailed.mockRejectedValueOnce(new Error("disk I/O error"));
    const conversationId = await newConversation();
    fake().script({ content: "First answer" });
    const failed = await send(conversationId, "First question");
    expect(failed.events.find((event) => event.event === "error")?.data).toMatchObject({ code: "internal" });
    const runId = failed.events.find((event) => event.event === "run")?.data.runId as string;
    // The first attempt and its three retries all failed.
    await expect.poll(() => markFailed.mock.calls.length, { timeout: 10_000 }).toBe(4);
    expect((await runs.getRun(await getDb(), { id: runId })).status).toBe("running");

    fake().script({ content: "Second answer" });
    const next = await send(conversationId, "Second question");
    expect(next.status).toBe(200);
    expect(next.events.at(-1)?.event).toBe("done");
    expect((await runs.getRun(await getDb(), { id: runId })).status).toBe("error");
  });
});
