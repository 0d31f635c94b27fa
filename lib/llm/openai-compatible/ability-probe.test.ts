import { describe, expect, it } from "vitest";
import type { OpenAICompatibleServer } from "@/lib/env-config";
import { type FakeOpenAIModel, type Flavor, startFakeOpenAI } from "@/tests/fake-openai/server";
import { AbilityProbes, type ProbedAbility, probeAbility } from "./ability-probe";
import { fetchServerModels, modelIdentity, type ServerModel } from "./server-models";

async function withFake<T>(flavor: Flavor, models: FakeOpenAIModel[], run: (url: string) => Promise<T>): Promise<T> {
  const fake = await startFakeOpenAI({ flavor, models });
  try {
    return await run(fake.url);
  } finally {
    await fake.close();
  }
}

const serverAt = (url: string): OpenAICompatibleServer => ({ label: "gpu", baseUrl: `${url}/v1` });
const probe = (url: string, model: string, which: ProbedAbility) => probeAbility(serverAt(url), model, which, 5000);

describe.each<Flavor>(["llama-server", "vllm"])("the ability probes on %s", (flavor) => {
  it("find tool calling and JSON mode on a server set up for both", async () => {
    await withFake(flavor, [{ id: "m", contextLength: 4096 }], async (url) => {
      expect(await probe(url, "m", "tool_call")).toBe(true);
      expect(await probe(url, "m", "json_mode")).toBe(true);
    });
  });

  it("find no tool calling where the server refuses tools (llama-server without --jinja, vLLM without auto tool choice)", async () => {
    await withFake(flavor, [{ id: "m", contextLength: 4096, tools: false }], async (url) => {
      expect(await probe(url, "m", "tool_call")).toBe(false);
    });
  });

  it("find no JSON mode where the server refuses json_object, or ignores it and writes prose", async () => {
    await withFake(flavor, [{ id: "m", contextLength: 4096, jsonModes: ["json_schema"] }], async (url) => {
      expect(await probe(url, "m", "json_mode")).toBe(false);
    });
    const ignoring = { id: "m", contextLength: 4096, jsonModes: [], unsupportedFormat: "ignore" } as const;
    await withFake(flavor, [{ ...ignoring, jsonModes: [] }], async (url) => {
      expect(await probe(url, "m", "json_mode")).toBe(false);
    });
  });
});

describe("a probe that gets no answer", () => {
  it("is no refusal: a server error about something else (overloaded, restarting) throws, so nothing is kept", async () => {
    const fake = await startFakeOpenAI({ flavor: "llama-server", models: [{ id: "m", contextLength: 4096 }] });
    try {
      fake.script({ errorStatus: 503, error: "Loading model" }, { errorStatus: 503, error: "Loading model" });
      await expect(probe(fake.url, "m", "tool_call")).rejects.toThrow();
      await expect(probe(fake.url, "m", "json_mode")).rejects.toThrow();
      expect(await probe(fake.url, "m", "tool_call")).toBe(true);
    } finally {
      await fake.close();
    }
  });
});

describe("a probe's request", () => {
  it("is tiny: a few output tokens, no thinking, and tools as the real calls send them (tool_choice auto)", async () => {
    const fake = await startFakeOpenAI({ flavor: "vllm", models: [{ id: "m", contextLength: 4096 }] });
    try {
      await probe(fake.url, "m", "tool_call");
      await probe(fake.url, "m", "json_mode");
      const [tools, json] = fake.chatRequests().map((request) => request.body);
      expect(tools).toMatchObject({ max_tokens: 8, chat_template_kwargs: { enable_thinking: false } });
      expect(tools.tools).toHaveLength(1);
      expect(tools.tool_choice).toBe("auto");
      expect(json).toMatchObject({ max_tokens: 8, response_format: { type: "json_object" } });
    } finally {
      await fake.close();
    }
  });
});

describe("the probes' cache", () => {
  const server: OpenAICompatibleServer = { label: "gpu", baseUrl: "http://127.0.0.1:1/v1" };
  const model = (identity: string): ServerModel => ({ name: "m", created: null, contextLength: 4096, identity });

  function counting(answer: (which: ProbedAbility) => Promise<boolean>) {
    const asked: string[] = [];
    const probes = new AbilityProbes(async (_server, name, which) => {
      asked.push(`${name}:${which}`);
      return answer(which);
    });
    return { probes, asked };
  }

  it("probes each ability once per model, however often it is asked, and tells what it found without probing", async () => {
    const { probes, asked } = counting(async (which) => which === "tool_call");
    expect(probes.known(server, model("a"), "tool_call")).toBeUndefined();
    const answers = await Promise.all([
      probes.get(server, model("a"), "tool_call"),
      probes.get(server, model("a"), "tool_call"),
      probes.get(server, model("a"), "json_mode"),
    ]);
    expect(await probes.get(server, model("a"), "tool_call")).toBe(true);
    expect(answers).toEqual([true, true, false]);
    expect(asked).toEqual(["m:tool_call", "m:json_mode"]);
    expect(probes.known(server, model("a"), "tool_call")).toBe(true);
  });

  it("probes again when another model stands under the same name (a changed identity)", async () => {
    const { probes, asked } = counting(async () => true);
    await probes.get(server, model("a"), "tool_call");
    await probes.get(server, model("b"), "tool_call");
    expect(asked).toEqual(["m:tool_call", "m:tool_call"]);
    expect(probes.known(server, model("a"), "tool_call")).toBe(true);
  });

  it("keeps no failed probe: the error goes to the caller and the next call asks again", async () => {
    let fail = true;
    const { probes, asked } = counting(async () => {
      if (fail) throw new Error("server away");
      return true;
    });
    await expect(probes.get(server, model("a"), "json_mode")).rejects.toThrow("server away");
    fail = false;
    expect(await probes.get(server, model("a"), "json_mode")).toBe(true);
    expect(asked).toHaveLength(2);
  });
});

describe("a model's identity", () => {
  const now = 1_800_000_000;

  it("ignores a `created` that is the list's own time (llama-server and vLLM send now) and permission ids", () => {
    const entry = { id: "m", object: "model", max_model_len: 4096 };
    expect(modelIdentity({ ...entry, created: now, permission: [{ id: "a" }] }, now)).toBe(
      modelIdentity({ ...entry, created: now + 60, permission: [{ id: "b" }] }, now + 61),
    );
  });

  it("changes with a real `created` and with what the server says of the model", () => {
    const entry = { id: "m", object: "model", max_model_len: 4096 };
    const first = modelIdentity({ ...entry, created: 1_700_000_000 }, now);
    expect(modelIdentity({ ...entry, created: 1_700_000_500 }, now)).not.toBe(first);
    expect(modelIdentity({ ...entry, created: 1_700_000_000, max_model_len: 8192 }, now)).not.toBe(first);
  });

  it("stays the same across two lists of one llama-server, and changes when it serves another model file", async () => {
    const fake = await startFakeOpenAI({ flavor: "llama-server", models: [{ id: "m", contextLength: 4096 }] });
    try {
      const look = async () => (await fetchServerModels(serverAt(fake.url), 5000)).models[0]?.identity;
      const first = await look();
      expect(await look()).toBe(first);
      fake.setModels([{ id: "m", contextLength: 8192 }]);
      expect(await look()).not.toBe(first);
    } finally {
      await fake.close();
    }
  });
});
