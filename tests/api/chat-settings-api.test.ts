import { describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { GET as getOne, PATCH } from "@/app/api/conversations/[id]/route";
import { POST as create } from "@/app/api/conversations/route";
import { getConfig } from "@/lib/env-config";
import type { RecordedRequest } from "@/tests/fake-ollama/server";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import {
  expectApiError,
  jsonRequest,
  newConversation,
  params,
  readEvents,
  setupAppEnv,
  waitIdle,
} from "@/tests/support/app-env";

const fake = setupFakeOllama();
const app = setupAppEnv(fake);

const patch = (id: string, body: unknown) =>
  PATCH(jsonRequest(`/api/conversations/${id}`, "PATCH", body), params({ id }));

async function settingsOf(id: string): Promise<Record<string, unknown>> {
  const response = await getOne(jsonRequest(`/api/conversations/${id}`, "GET"), params({ id }));
  return ((await response.json()) as { conversation: { settings: Record<string, unknown> } }).conversation.settings;
}

async function runTurn(conversationId: string, message: string, extra: Record<string, unknown> = {}) {
  const response = await chat(jsonRequest("/api/chat", "POST", { conversationId, message, ...extra }));
  expect(response.status).toBe(200);
  const events = await readEvents(response);
  await waitIdle(fake(), conversationId);
  return events;
}

const systemOf = (request: RecordedRequest | undefined) =>
  ((request?.body.messages ?? []) as { role: string; content: string }[]).find((m) => m.role === "system")?.content ??
  "";

describe("PATCH /api/conversations/:id settings", () => {
  it("stores a chat's own settings and GET returns them; instructions are trimmed", async () => {
    const id = await newConversation();
    expect(await settingsOf(id)).toEqual({});
    const settings = { instructions: "  Answer like a pirate.  ", temperature: 1.2, topP: 0.4, seed: 42, numCtx: 4096 };
    const response = await patch(id, { settings: { ...settings, think: false } });
    expect(response.status).toBe(200);
    const stored = { ...settings, instructions: "Answer like a pirate.", think: false };
    expect(((await response.json()) as { conversation: { settings: unknown } }).conversation.settings).toEqual(stored);
    expect(await settingsOf(id)).toEqual(stored);
  });

  it("replaces the settings whole: {} resets them to the model's defaults", async () => {
    const id = await newConversation();
    await patch(id, { settings: { temperature: 0.5, instructions: "Be brief." } });
    expect((await patch(id, { settings: {} })).status).toBe(200);
    expect(await settingsOf(id)).toEqual({});
  });

  it.each([
    ["a temperature above 2", { temperature: 2.5 }],
    ["a negative temperature", { temperature: -0.1 }],
    ["top_p above 1", { topP: 1.01 }],
    ["a fractional seed", { seed: 1.5 }],
    ["a negative seed", { seed: -1 }],
    ["a context below 512", { numCtx: 100 }],
    ["a number written as a string", { temperature: "NaN" }],
    ["think as a string", { think: "yes" }],
    ["an unknown setting", { top_k: 40 }],
  ])("refuses %s with a 400 and leaves the settings as they were", async (_name, settings) => {
    const id = await newConversation();
    await patch(id, { settings: { temperature: 0.7 } });
    await expectApiError(await patch(id, { settings }), 400, "bad_request:validation");
    expect(await settingsOf(id)).toEqual({ temperature: 0.7 });
  });

  it("refuses an infinite number (1e999 in the JSON) with a 400", async () => {
    const id = await newConversation();
    await expectApiError(await patch(id, '{"settings":{"temperature":1e999}}'), 400, "bad_request:validation");
    expect(await settingsOf(id)).toEqual({});
  });

  it("refuses instructions over MAX_INSTRUCTIONS_CHARS with a 400 naming the limit", async () => {
    const id = await newConversation();
    const max = getConfig().MAX_INSTRUCTIONS_CHARS;
    expect((await patch(id, { settings: { instructions: "日".repeat(max) } })).status).toBe(200);
    const message = await expectApiError(
      await patch(id, { settings: { instructions: "日".repeat(max + 1) } }),
      400,
      "bad_request:validation",
    );
    expect(JSON.stringify(message)).not.toContain("日日日");
    expect((await settingsOf(id)).instructions).toHaveLength(max);
  });

  it("refuses a context above the server's NUM_CTX with a 400 naming NUM_CTX", async () => {
    const id = await newConversation();
    const response = await patch(id, { settings: { numCtx: getConfig().NUM_CTX + 1 } });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain("NUM_CTX");
  });

  it("is a 404 for an unknown conversation", async () => {
    await expectApiError(await patch("nope", { settings: {} }), 404, "not_found:conversation");
  });
});

describe("a chat's own settings reach Ollama", () => {
  it("sends the instructions and options on every model call of a turn (loop and synthesis), not to the title", async () => {
    app.web().routes.set("/page", { body: "<article><p>Page text here.</p></article>" });
    const id = await newConversation("qwen3:8b");
    await patch(id, {
      settings: {
        instructions: "Always answer in haiku.",
        temperature: 1.1,
        topP: 0.3,
        seed: 9,
        numCtx: 2048,
        think: false,
      },
    });
    fake().reset();
    fake().script(
      { when: { hasTools: true }, toolCalls: [{ name: "scrape_url", arguments: { url: `${app.web().url}/page` } }] },
      { when: { hasTools: true }, content: "Draft." },
      { when: { hasTools: false, stream: true }, chunks: ["Five ", "seven ", "five."] },
    );
    const events = await runTurn(id, "What does the page say?");
    expect(events.at(-2)?.event === "done" || events.at(-1)?.event === "title").toBe(true);
    const requests = fake().chatRequests();
    const turn = requests.filter((r) => !JSON.stringify(r.body.messages).includes("title"));
    // the loop's two calls and the synthesis
    expect(turn.length).toBeGreaterThanOrEqual(3);
    for (const request of turn) {
      expect(systemOf(request)).toContain("Always answer in haiku.");
      expect(request.body.options).toMatchObject({ temperature: 1.1, top_p: 0.3, seed: 9, num_ctx: 2048 });
      expect(request.body.think).toBe(false);
    }
    const title = requests.find((r) => !turn.includes(r));
    expect(title?.body.options).not.toHaveProperty("seed");
    expect(title?.body.options).not.toHaveProperty("top_p");
    expect(title?.body.options.temperature).toBe(0.2);
  });

  it("sends the instructions on the fast path (a direct answer)", async () => {
    const id = await newConversation();
    await patch(id, { settings: { instructions: "Sign every answer with —Bot." } });
    fake().reset();
    fake().script({ when: { hasTools: true }, content: "Hello. —Bot" });
    await runTurn(id, "Hi");
    const loop = fake().chatRequests()[0];
    expect(systemOf(loop)).toContain("Sign every answer with —Bot.");
    // The agent's own instructions stay, before the user's.
    expect(systemOf(loop).indexOf("scrape_url")).toBeLessThan(systemOf(loop).indexOf("Sign every answer"));
  });

  it("caps the context at the model's own length when the chat asks for more", async () => {
    const id = await newConversation("llava:7b");
    await patch(id, { settings: { numCtx: 8192 } });
    fake().reset();
    await runTurn(id, "Hi");
    for (const request of fake().chatRequests()) expect(request.body.options.num_ctx).toBe(4096);
  });

  it("sends no sampling options and the server's context for a chat without settings", async () => {
    const id = await newConversation();
    fake().reset();
    await runTurn(id, "Hi");
    const loop = fake().chatRequests()[0];
    expect(loop?.body.options).toEqual({ num_ctx: getConfig().NUM_CTX });
    expect(systemOf(loop)).not.toContain("instructions for this conversation");
  });
});

describe("POST /api/conversations starts with no settings unless a preset gives them", () => {
  it("creates a conversation with empty settings", async () => {
    const response = await create(jsonRequest("/api/conversations", "POST", {}));
    expect(((await response.json()) as { conversation: { settings: unknown } }).conversation.settings).toEqual({});
  });
});
