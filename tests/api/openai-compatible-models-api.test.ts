// Models of OpenAI-compatible servers across the app: named `<model>@<label>`, listed beside Ollama's
// (one entry per server when two have a name), routed to their server by getLLM and a chat turn,
// their abilities probed once and overridden by an admin, an unknown one refused as unknown_model.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { GET as listModels } from "@/app/api/models/route";
import { PATCH as patchSettings } from "@/app/api/settings/route";
import { updateSettings } from "@/lib/admin-settings";
import { getDb } from "@/lib/db/client";
import { resetConfigForTests } from "@/lib/env-config";
import { getLLM, resolveModelName } from "@/lib/llm/registry";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { type FakeOpenAI, startFakeOpenAI } from "@/tests/fake-openai/server";
import { jsonRequest, newConversation, readEvents, setupAppEnv } from "@/tests/support/app-env";

const fakeOllama = setupFakeOllama();
setupAppEnv(fakeOllama);

let llama: FakeOpenAI;
let gpu: FakeOpenAI;
let locked: FakeOpenAI;

beforeAll(async () => {
  [llama, gpu, locked] = await Promise.all([
    startFakeOpenAI({ flavor: "llama-server", models: [{ id: "qwen3", contextLength: 4096 }] }),
    startFakeOpenAI({
      flavor: "vllm",
      apiKey: "sk-gpu",
      models: [
        { id: "qwen3", contextLength: 32768 },
        { id: "plain-model", contextLength: 8192, tools: false, jsonModes: [] },
        { id: "json-model", contextLength: 8192, tools: false },
      ],
    }),
    startFakeOpenAI({ flavor: "vllm", apiKey: "sk-right" }),
  ]);
  process.env.OPENAI_COMPATIBLE_URLS = `llama=${llama.url}/v1,gpu=${gpu.url}/v1,locked=${locked.url}/v1`;
  process.env.OPENAI_COMPATIBLE_KEYS = "gpu=sk-gpu,locked=sk-wrong";
  resetConfigForTests();
});
afterAll(async () => {
  delete process.env.OPENAI_COMPATIBLE_URLS;
  delete process.env.OPENAI_COMPATIBLE_KEYS;
  resetConfigForTests();
  await updateSettings(await getDb(), { modelAbilities: { "qwen3@gpu": null, "plain-model@gpu": null } });
  await Promise.all([llama.close(), gpu.close(), locked.close()]);
});

interface Listed {
  name: string;
  contextLength: number | null;
  usableContext: number;
  abilities: { tool_call: boolean; json_mode: boolean; vision: boolean; thinking: boolean };
  openaiCompatible?: { label: string; model: string };
}

async function listed(): Promise<Listed[]> {
  return ((await (await listModels(jsonRequest("/api/models", "GET"))).json()) as { models: Listed[] }).models;
}

const probesOf = (fake: FakeOpenAI, model: string) =>
  fake.chatRequests().filter((request) => request.body?.model === model && request.body?.max_tokens === 8);

describe("the model list", () => {
  it("lists each server's models after Ollama's as <model>@<label>, tagged with the server, one entry per server for a shared name", async () => {
    const models = await listed();
    const served = models.filter((model) => model.openaiCompatible);
    expect(models.slice(0, models.length - served.length).every((model) => !model.openaiCompatible)).toBe(true);
    expect(served.map((model) => [model.name, model.openaiCompatible])).toEqual([
      ["qwen3@llama", { label: "llama", model: "qwen3" }],
      ["qwen3@gpu", { label: "gpu", model: "qwen3" }],
      ["plain-model@gpu", { label: "gpu", model: "plain-model" }],
      ["json-model@gpu", { label: "gpu", model: "json-model" }],
    ]);
    // Each with its server's context, whole (no num_ctx to cap it).
    expect(served.map((model) => model.usableContext)).toEqual([4096, 32768, 8192, 8192]);
    // Listing probes nothing: not yet probed is not yet able.
    expect(served[0]?.abilities).toEqual({ tool_call: false, json_mode: false, vision: false, thinking: false });
    expect(llama.chatRequests()).toHaveLength(0);
  });
});

describe("routing a model name", () => {
  it("gives a <model>@<label> name the server's adapter (label in any case) and a plain name Ollama's", async () => {
    const served = await getLLM("qwen3@LLAMA");
    expect([served.model, served.contextLength]).toEqual(["qwen3@llama", 4096]);
    llama.script({ when: { lastUserIncludes: "who answers" }, content: "llama-server does." });
    expect((await served.chat([{ role: "user", content: "who answers?" }])).content).toBe("llama-server does.");
    const ollama = await getLLM("llama3.2");
    expect(ollama.model).toBe("llama3.2");
    expect(llama.chatRequests().every((request) => request.body.model === "qwen3")).toBe(true);
  });

  it("refuses a model its server does not have as unknown_model, named as the app names it", async () => {
    await expect(getLLM("missing@gpu")).rejects.toMatchObject({
      code: "bad_request:unknown_model",
      details: { model: "missing@gpu" },
    });
  });

  it("says each server's state, so a chat on a model of a server that refused its key can say which", async () => {
    const body = (await (await listModels(jsonRequest("/api/models", "GET"))).json()) as {
      servers: { label: string; state: string }[];
    };
    expect(body.servers).toEqual([
      { label: "llama", state: "up" },
      { label: "gpu", state: "up" },
      { label: "locked", state: "key_refused" },
    ]);
    expect(JSON.stringify(body.servers)).not.toContain(locked.url);
  });

  it("names the server whose key is refused", async () => {
    await expect(getLLM("Qwen/Qwen3-8B@locked")).rejects.toMatchObject({
      code: "upstream:openai_key_refused",
      message: expect.stringContaining('"locked" refused the API key'),
    });
  });

  it("probes a model's tool calling and JSON mode once, and lists what it found", async () => {
    const first = await getLLM("plain-model@gpu");
    await getLLM("plain-model@gpu");
    expect(first.abilities).toEqual({ tool_call: false, json_mode: false, vision: false, thinking: false });
    expect(probesOf(gpu, "plain-model")).toHaveLength(2);
    const able = await getLLM("qwen3@gpu");
    expect(able.abilities).toMatchObject({ tool_call: true, json_mode: true });
    expect((await listed()).find((model) => model.name === "qwen3@gpu")?.abilities).toMatchObject({
      tool_call: true,
      json_mode: true,
    });
  });

  it("takes an admin's override over the probe, vision and thinking only from it, and drops it on null", async () => {
    const patch = (modelAbilities: unknown) => patchSettings(jsonRequest("/api/settings", "PATCH", { modelAbilities }));
    expect((await patch({ "plain-model@gpu": { tool_call: true, vision: true } })).status).toBe(200);
    expect((await getLLM("plain-model@gpu")).abilities).toEqual({
      tool_call: true,
      json_mode: false,
      vision: true,
      thinking: false,
    });
    expect((await patch({ "plain-model@gpu": { toolCall: true } })).status).toBe(400);
    await patch({ "plain-model@gpu": null });
    expect((await getLLM("plain-model@gpu")).abilities).toMatchObject({ tool_call: false, vision: false });
  });

  it("needs no probe for an ability the admin set", async () => {
    await updateSettings(await getDb(), { modelAbilities: { "qwen3@llama": { tool_call: false, json_mode: true } } });
    const before = probesOf(llama, "qwen3").length;
    await getLLM("qwen3@llama");
    expect(probesOf(llama, "qwen3").length).toBe(before);
    await updateSettings(await getDb(), { modelAbilities: { "qwen3@llama": null } });
  });

  it("falls back to Ollama's first model, and keeps an explicit server model", async () => {
    expect(await resolveModelName(undefined, null)).not.toContain("@");
    expect(await resolveModelName("qwen3@gpu")).toBe("qwen3@gpu");
  });
});

describe("a chat turn on a server model", () => {
  it("is answered by its server, not by Ollama", async () => {
    const id = await newConversation("qwen3@llama");
    llama.script({ when: { stream: true, lastUserIncludes: "Capital of Norway" }, chunks: ["Os", "lo."] });
    const ollamaBefore = fakeOllama().chatRequests().length;
    const events = await readEvents(
      await chat(jsonRequest("/api/chat", "POST", { conversationId: id, message: "Capital of Norway?" })),
      (event) => event.event === "done",
    );
    const answer = events
      .filter((event) => event.event === "answer" && event.data.status === "delta")
      .map((event) => event.data.content)
      .join("");
    expect(answer).toBe("Oslo.");
    expect(events.find((event) => event.event === "run")?.data).toMatchObject({ model: "qwen3@llama" });
    // Only the title may have gone to Ollama's model list… none to its chat.
    expect(fakeOllama().chatRequests().length).toBe(ollamaBefore);
  });
});

describe("a turn in JSON mode on a server model that takes no tools", () => {
  it("runs the tool of a JSON action, each loop call with response_format json_object and no tools, then synthesises the answer", async () => {
    const id = await newConversation("json-model@gpu");
    const action = (value: Record<string, unknown>) => JSON.stringify(value);
    gpu.script(
      {
        when: { model: "json-model", stream: true, lastUserIncludes: "Weather in Oslo" },
        content: action({
          type: "tool_call",
          reasoning: "look it up",
          tool_name: "web_search",
          tool_args: { query: "Oslo weather" },
        }),
      },
      {
        match: (request) => request.model === "json-model" && request.response_format?.type === "json_object",
        content: action({ type: "final_answer", reasoning: "found", answer: "Sunny, says the draft." }),
      },
      // After a tool ran, synthesis writes the answer: a plain streamed call.
      {
        match: (request) => request.model === "json-model" && request.stream === true && !request.response_format,
        chunks: ["Sunny ", "in Oslo."],
      },
    );
    const events = await readEvents(
      await chat(jsonRequest("/api/chat", "POST", { conversationId: id, message: "Weather in Oslo?" })),
      (event) => event.event === "done",
    );
    const answer = events
      .filter((event) => event.event === "answer" && event.data.status === "delta")
      .map((event) => event.data.content)
      .join("");
    expect(answer).toBe("Sunny in Oslo.");
    expect(events.some((event) => event.event === "step" && event.data.type === "tool_call")).toBe(true);
    const loop = gpu.chatRequests().filter((request) => request.body.model === "json-model" && request.body.stream);
    expect(loop.length).toBeGreaterThanOrEqual(2);
    for (const request of loop.slice(0, 2)) {
      expect(request.body.response_format).toEqual({ type: "json_object" });
      expect(request.body).not.toHaveProperty("tools");
    }
  });
});
