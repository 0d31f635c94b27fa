// Runs on models of OpenAI-compatible servers behind POST /api/chat, against the fake llama-server and
// vLLM (docs/architecture.md, "OpenAI-compatible servers"): a chat turn, the native and the JSON-mode
// tool loops, a DAG run, a research run, and a refused key named by its server, never shown.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { GET as getOne, PATCH as patchConversation } from "@/app/api/conversations/[id]/route";
import { updateSettings } from "@/lib/admin-settings";
import { getDb } from "@/lib/db/client";
import { resetConfigForTests } from "@/lib/env-config";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { argumentPieces } from "@/tests/fake-openai/reply";
import {
  type ChatRequest,
  type FakeOpenAI,
  type Flavor,
  type ScriptedReply,
  startFakeOpenAI,
} from "@/tests/fake-openai/server";
import {
  expectApiError,
  jsonRequest,
  newConversation,
  type ParsedEvent,
  params,
  readEvents,
  setupAppEnv,
  waitIdle,
} from "@/tests/support/app-env";

const fakeOllama = setupFakeOllama();
const app = setupAppEnv(fakeOllama);

const FLAVORS: Flavor[] = ["llama-server", "vllm"];
const WRONG_KEY = "sk-wrong-0123456789";

/** Per flavour: a server whose model takes tools and JSON mode, one started without tool calling, one whose key is not ours. */
interface Servers {
  able: FakeOpenAI;
  plain: FakeOpenAI;
  locked: FakeOpenAI;
}
const servers = {} as Record<Flavor, Servers>;
const everyServer = (): FakeOpenAI[] =>
  FLAVORS.flatMap((flavor) => [servers[flavor].able, servers[flavor].plain, servers[flavor].locked]);
const short = (flavor: Flavor) => (flavor === "llama-server" ? "llama" : "vllm");
/** The app's names for each server's model. */
const ableModel = (flavor: Flavor) => `qwen3@${short(flavor)}`;
const plainModel = (flavor: Flavor) => `gemma@${short(flavor)}-plain`;
const lockedModel = (flavor: Flavor) => `qwen3@${short(flavor)}-locked`;

const abilities = (tool_call: boolean, json_mode: boolean) => ({ tool_call, json_mode });
const overrides = () =>
  Object.fromEntries(
    FLAVORS.flatMap((flavor) => [
      [ableModel(flavor), abilities(true, true)],
      [plainModel(flavor), abilities(false, true)],
      [lockedModel(flavor), abilities(true, true)],
    ]),
  );

beforeAll(async () => {
  for (const flavor of FLAVORS) {
    const [able, plain, locked] = await Promise.all([
      startFakeOpenAI({ flavor, models: [{ id: "qwen3", contextLength: 32768 }] }),
      startFakeOpenAI({ flavor, models: [{ id: "gemma", contextLength: 32768, tools: false }] }),
      startFakeOpenAI({ flavor, apiKey: "sk-right", models: [{ id: "qwen3", contextLength: 32768 }] }),
    ]);
    servers[flavor] = { able, plain, locked };
  }
  process.env.OPENAI_COMPATIBLE_URLS = FLAVORS.flatMap((flavor) => {
    const { able, plain, locked } = servers[flavor];
    const label = short(flavor);
    return [`${label}=${able.url}/v1`, `${label}-plain=${plain.url}/v1`, `${label}-locked=${locked.url}/v1`];
  }).join(",");
  process.env.OPENAI_COMPATIBLE_KEYS = FLAVORS.map((flavor) => `${short(flavor)}-locked=${WRONG_KEY}`).join(",");
  resetConfigForTests();
  // Abilities set by the admin: no probe takes a scripted reply meant for the run.
  await updateSettings(await getDb(), { modelAbilities: overrides() });
});
afterAll(async () => {
  delete process.env.OPENAI_COMPATIBLE_URLS;
  delete process.env.OPENAI_COMPATIBLE_KEYS;
  resetConfigForTests();
  const cleared = Object.fromEntries(Object.keys(overrides()).map((name) => [name, null]));
  await updateSettings(await getDb(), { modelAbilities: cleared });
  await Promise.all(everyServer().map((fake) => fake.close()));
});
beforeEach(() => {
  for (const fake of everyServer()) fake.reset();
});

const toolNames = (req: ChatRequest) => (req.tools ?? []).map((tool) => tool.function.name);
const offers = (req: ChatRequest, name: string) => toolNames(req).includes(name);
const textOf = (content: unknown) =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((part: { text?: string }) => part.text ?? "").join("")
      : "";
const lastUser = (req: ChatRequest) => textOf(req.messages?.filter((m) => m.role === "user").at(-1)?.content);
const toolResults = (req: ChatRequest) => (req.messages ?? []).filter((m) => m.role === "tool").length;

const of = (events: ParsedEvent[], name: string) => events.filter((e) => e.event === name).map((e) => e.data);
const toolSteps = (events: ParsedEvent[]) => of(events, "step").filter((step) => String(step.type).startsWith("tool_"));
const answerOf = (events: ParsedEvent[]) => {
  let text = "";
  for (const part of of(events, "answer")) {
    if (part.status === "start") text = "";
    if (part.status === "delta") text += String(part.content);
  }
  return text;
};

/** The run ended to its last step (a first turn's title is made after `done`) and every server's requests with it. */
async function idle(conversationId: string): Promise<void> {
  await waitIdle(fakeOllama(), conversationId);
  await expect
    .poll(() => everyServer().every((fake) => fake.requests.every((r) => r.finished || r.aborted)), { timeout: 5000 })
    .toBe(true);
}

async function runTurn(body: Record<string, unknown>): Promise<ParsedEvent[]> {
  const response = await chat(jsonRequest("/api/chat", "POST", body));
  expect(response.status).toBe(200);
  const events = await readEvents(response);
  await idle(String(body.conversationId));
  return events;
}

interface StoredMessage {
  role: string;
  content: string;
  status: string;
  run: { mode: string; status: string; error?: string; model?: string } | null;
}
const messagesOf = async (id: string) =>
  ((await (await getOne(jsonRequest("", "GET"), params({ id }))).json()) as { messages: StoredMessage[] }).messages;

describe.each(FLAVORS)("on %s", (flavor) => {
  const able = () => servers[flavor].able;
  const plain = () => servers[flavor].plain;

  it("streams a chat turn's answer from the model's server to done, Ollama asked nothing", async () => {
    const id = await newConversation(ableModel(flavor));
    able().script({ when: { stream: true, lastUserIncludes: "Capital of Norway" }, chunks: ["Os", "lo", "."] });
    const events = await runTurn({ conversationId: id, message: "Capital of Norway?" });

    expect(events[0]).toMatchObject({ event: "run", data: { model: ableModel(flavor) } });
    expect(of(events, "answer").filter((part) => part.status === "delta")).toHaveLength(3);
    expect(answerOf(events)).toBe("Oslo.");
    expect(events.filter((e) => e.event === "done")).toHaveLength(1);
    expect(of(events, "error")).toEqual([]);
    const turn = able()
      .chatRequests()
      .find((r) => r.body.stream === true);
    expect(turn?.body).toMatchObject({ model: "qwen3", stream: true });
    expect(fakeOllama().chatRequests()).toEqual([]);
    const [, answer] = await messagesOf(id);
    expect(answer).toMatchObject({ role: "assistant", content: "Oslo.", status: "complete" });
  });

  it("runs a native tool call whose arguments arrive split across deltas, sends its result back under its id, then streams the answer", async () => {
    app.web().routes.set("/fjords", { body: "<p>Norway has about 1,190 fjords.</p>" });
    const url = `${app.web().url}/fjords`;
    // The fake sends a call's arguments a few characters per delta: this call's come in many.
    expect(argumentPieces(JSON.stringify({ url })).length).toBeGreaterThan(3);
    const id = await newConversation(ableModel(flavor));
    able().script(
      {
        match: (req) => req.stream === true && offers(req, "scrape_url") && toolResults(req) === 0,
        toolCalls: [{ id: "call_fjords", name: "scrape_url", arguments: { url } }],
      },
      {
        match: (req) => req.stream === true && offers(req, "scrape_url") && toolResults(req) === 1,
        content: "A draft.",
      },
      // After a tool ran, synthesis writes the answer from the trace: a streamed call without tools.
      {
        match: (req) => req.stream === true && !req.tools && toolResults(req) === 0,
        chunks: ["About ", "1,190 ", "fjords."],
      },
    );
    const events = await runTurn({ conversationId: id, message: "How many fjords has Norway?" });

    const steps = toolSteps(events);
    expect(steps.map((step) => step.type)).toEqual(["tool_call", "tool_result"]);
    expect(steps[0]).toMatchObject({ tool: "scrape_url", args: { url } });
    expect(JSON.stringify(steps[1])).toContain("1,190 fjords");
    expect(answerOf(events)).toBe("About 1,190 fjords.");
    expect(of(events, "error")).toEqual([]);

    // The call went back whole, under the server's id, with its result.
    const followUp = able()
      .chatRequests()
      .find((r) => r.body.stream === true && toolResults(r.body) === 1);
    const messages = (followUp?.body as ChatRequest | undefined)?.messages ?? [];
    const call = messages.find((m) => m.role === "assistant" && m.tool_calls?.length)?.tool_calls?.[0] as {
      id: string;
      function: { name: string; arguments: string };
    };
    expect(call.id).toBe("call_fjords");
    expect(call.function.name).toBe("scrape_url");
    expect(JSON.parse(call.function.arguments)).toEqual({ url });
    const result = messages.find((m) => m.role === "tool") as { tool_call_id?: string; content?: string };
    expect(result.tool_call_id).toBe("call_fjords");
    expect(result.content).toContain("1,190 fjords");
    expect(fakeOllama().chatRequests()).toEqual([]);
  });

  it("runs the JSON-mode loop on a model without tool calling: each loop call with response_format and no tools, the tool run, then the synthesised answer", async () => {
    app.web().routes.set("/weather", { body: "<p>Oslo: sunny, 21 degrees.</p>" });
    const url = `${app.web().url}/weather`;
    const id = await newConversation(plainModel(flavor));
    const action = (value: Record<string, unknown>) => JSON.stringify(value);
    plain().script(
      {
        match: (req) => req.stream === true && req.response_format?.type === "json_object" && toolResults(req) === 0,
        content: action({ type: "tool_call", reasoning: "read it", tool_name: "scrape_url", tool_args: { url } }),
      },
      {
        match: (req) =>
          req.response_format?.type === "json_object" && JSON.stringify(req.messages).includes("21 degrees"),
        content: action({ type: "final_answer", reasoning: "found", answer: "Sunny." }),
      },
      {
        match: (req) =>
          req.stream === true && !req.response_format && JSON.stringify(req.messages).includes("21 degrees"),
        chunks: ["Sunny, ", "21 degrees."],
      },
    );
    const events = await runTurn({ conversationId: id, message: "Weather in Oslo?" });

    expect(of(events, "error")).toEqual([]);
    expect(toolSteps(events).map((step) => step.type)).toEqual(["tool_call", "tool_result"]);
    expect(toolSteps(events)[0]).toMatchObject({ tool: "scrape_url", args: { url } });
    expect(answerOf(events)).toBe("Sunny, 21 degrees.");
    const loop = plain()
      .chatRequests()
      .filter((r) => r.body.response_format);
    expect(loop.length).toBeGreaterThanOrEqual(2);
    for (const request of loop) {
      expect(request.body.response_format).toEqual({ type: "json_object" });
      expect(request.body).not.toHaveProperty("tools");
    }
    // No request offered tools: the server would have refused it.
    expect(
      plain()
        .chatRequests()
        .filter((r) => r.body.tools),
    ).toEqual([]);
  });

  it("runs a DAG plan on the server model: the plan and judge as structured tool calls, each step's agent, then the answer", async () => {
    const id = await newConversation(ableModel(flavor));
    const steps = [
      { id: "a", task: "count the fjords", dependencies: [] },
      { id: "b", task: "name the longest", dependencies: [] },
    ];
    const verdict = { achieved: true, confidence: 0.9, final_answer: "Draft.", reasoning: "both found" };
    able().script(
      { match: (req) => offers(req, "make_plan"), toolCalls: [{ name: "make_plan", arguments: { steps } }] },
      { match: (req) => lastUser(req).includes("Your step: count the fjords"), content: "About 1,190." },
      { match: (req) => lastUser(req).includes("Your step: name the longest"), content: "Sognefjord." },
      { match: (req) => offers(req, "judge_results"), toolCalls: [{ name: "judge_results", arguments: verdict }] },
      { match: (req) => req.stream === true && !req.tools, chunks: ["Final", "."] },
    );
    const events = await runTurn({ conversationId: id, message: "Fjords of Norway", mode: "dag" });

    expect(events[0]).toMatchObject({ event: "run", data: { mode: "dag", model: ableModel(flavor) } });
    expect(of(events, "error")).toEqual([]);
    expect(of(events, "plan")[0]).toMatchObject({ round: 1, steps: [{ id: "a" }, { id: "b" }] });
    const progress = of(events, "step_progress").map((p) => `${p.stepId} ${p.status} ${p.model}`);
    expect(progress.filter((line) => line.includes(" done "))).toEqual(
      expect.arrayContaining([`a done ${ableModel(flavor)}`, `b done ${ableModel(flavor)}`]),
    );
    expect(answerOf(events)).toBe("Final.");
    // The step b's agent was asked its own task; the final answer was written from both results.
    const final = able()
      .chatRequests()
      .find((r) => r.body.stream === true && !r.body.tools);
    expect(JSON.stringify(final?.body.messages)).toContain("Sognefjord.");
    expect(fakeOllama().chatRequests()).toEqual([]);
    const [, answer] = await messagesOf(id);
    expect(answer).toMatchObject({ content: "Final.", status: "complete", run: { mode: "dag", status: "complete" } });
  });

  it("runs research on the server model: the brief, each section read and written, the summary and its citations checked", async () => {
    const sections = ["Costs", "Savings", "Limits"].map((title, n) => ({
      id: `s${n + 1}`,
      title,
      questions: [`What about ${title}?`],
    }));
    for (const { title } of sections) {
      app.web().routes.set(`/${title.toLowerCase()}`, { body: `<p>${title}: heat pumps cost 100 euros.</p>` });
    }
    const researching = (req: ChatRequest) => /Section: (.*)\nIt must answer/.exec(lastUser(req))?.[1];
    const writing = (req: ChatRequest) => /Section: (.*)\nQuestions it answers/.exec(lastUser(req))?.[1];
    const brief = { goal: "Heat pumps", scope: "Homes", sections, clarifying_questions: [] };
    able().script(
      { match: (req) => offers(req, "make_brief"), toolCalls: [{ name: "make_brief", arguments: brief }] },
      sections.flatMap(({ title }) => [
        {
          match: (req) => researching(req) === title && offers(req, "scrape_url") && toolResults(req) === 0,
          toolCalls: [{ name: "scrape_url", arguments: { url: `${app.web().url}/${title.toLowerCase()}` } }],
        },
        { match: (req) => researching(req) === title && toolResults(req) === 1, content: `Notes on ${title}.` },
        // The writer cites the source its findings list first.
        answering(
          (req) => writing(req) === title,
          (req) => ({ chunks: [`${title} cost 100 euros `, `[${/\[(\d+)\]/.exec(lastUser(req))?.[1]}].`] }),
        ),
        {
          match: (req) => offers(req, "judge_citation"),
          toolCalls: [{ name: "judge_citation", arguments: { verdict: "supported", reason: "The page says so." } }],
        },
      ]),
      { match: (req) => lastUser(req).includes("The report:"), chunks: ["The summary."] },
    );
    const id = await newConversation(ableModel(flavor));
    const autoStart = { settings: { researchAutoStart: true } };
    expect((await patchConversation(jsonRequest("", "PATCH", autoStart), params({ id }))).status).toBe(200);
    const events = await runTurn({ conversationId: id, message: "Tell me about heat pumps", mode: "research" });

    expect(events[0]).toMatchObject({ event: "run", data: { mode: "research", model: ableModel(flavor) } });
    expect(of(events, "error")).toEqual([]);
    const phases = [...new Set(of(events, "research").map((p) => p.phase))];
    expect(phases).toEqual(["brief", "gathering", "writing", "verifying"]);
    const report = answerOf(events);
    expect(report).toMatch(/^# Heat pumps\n\n## Summary\n\nThe summary\.\n\n## Costs\n\nCosts cost 100 euros \[\d\]\./);
    expect(report).toContain("## Limits\n\nLimits cost 100 euros [");
    expect(report).toContain("## References");
    // Each section's claim judged by the server model's verifier.
    const [citations] = of(events, "citations") as { checks: { verdict: string }[]; verifierModel?: string }[];
    expect(citations?.verifierModel).toBe(ableModel(flavor));
    expect(citations?.checks.map((check) => check.verdict)).toEqual(["supported", "supported", "supported"]);
    expect(fakeOllama().chatRequests()).toEqual([]);
    const [, answer] = await messagesOf(id);
    expect(answer).toMatchObject({
      content: report,
      status: "complete",
      run: { mode: "research", status: "complete" },
    });
  });
});

describe("a key the server refuses", () => {
  it("fails the run on llama-server (its model list needs no key) with an error event naming the server, never the key", async () => {
    const { locked } = servers["llama-server"];
    const id = await newConversation(lockedModel("llama-server"));
    const events = await runTurn({ conversationId: id, message: "Hello?" });

    expect(events.map((e) => e.event)).toEqual(["run", "error", "done"]);
    const [failure] = of(events, "error");
    expect(failure).toMatchObject({ code: "upstream:openai_key_refused", details: { server: "llama-locked" } });
    expect(failure?.message).toContain('The server "llama-locked" refused the API key');
    // The key went to its own server only, and nowhere into what a user sees.
    expect(locked.chatRequests().at(-1)?.headers.authorization).toBe(`Bearer ${WRONG_KEY}`);
    expect(JSON.stringify(events)).not.toContain(WRONG_KEY);
    const [, answer] = await messagesOf(id);
    expect(answer?.run).toMatchObject({ status: "error", error: failure?.message });
    expect(JSON.stringify(await messagesOf(id))).not.toContain(WRONG_KEY);
  });

  it("refuses the turn on vLLM (its model list is behind the key) with an error naming the server, never the key, nothing stored", async () => {
    const id = await newConversation(lockedModel("vllm"));
    const response = await chat(jsonRequest("/api/chat", "POST", { conversationId: id, message: "Hello?" }));
    const text = await response.clone().text();
    const message = await expectApiError(response, 502, "upstream:openai_key_refused");
    expect(message).toContain('The server "vllm-locked" refused the API key');
    expect(text).not.toContain(WRONG_KEY);
    expect(await messagesOf(id)).toEqual([]);
  });
});

/**
 * A scripted reply made from the request it answers (a writer citing the source its findings list):
 * the fake hands out the reply object that matched, so what `answer` gives is what it sends.
 */
function answering(test: (req: ChatRequest) => boolean, answer: (req: ChatRequest) => ScriptedReply): ScriptedReply {
  const reply: ScriptedReply = {
    match: (req) => {
      if (!test(req)) return false;
      Object.assign(reply, answer(req));
      return true;
    },
  };
  return reply;
}
