import { afterEach, describe, expect, it, vi } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { POST as interrupt } from "@/app/api/conversations/[id]/interrupt/route";
import { GET as getOne, PATCH as patchConversation } from "@/app/api/conversations/[id]/route";
import { POST as stop } from "@/app/api/conversations/[id]/stop/route";
import { GET as replay } from "@/app/api/runs/[runId]/events/route";
import { GET as listSources } from "@/app/api/runs/[runId]/sources/route";
import { PATCH as patchSettings } from "@/app/api/settings/route";
import { briefText } from "@/lib/agent/research/brief-text";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { interruptLiveRuns } from "@/lib/chat/shutdown";
import { getDb } from "@/lib/db/client";
import { listFileSummaries } from "@/lib/db/conversation-detail";
import { searchLibrary } from "@/lib/db/library";
import { runSourcesWhole } from "@/lib/db/run-sources";
import { getConfig, resetConfigForTests } from "@/lib/env-config";
import { fileLimits } from "@/lib/files/quota";
import { keepResearchSources } from "@/lib/files/research-sources";
import { parseQuery } from "@/lib/library/query";
import { prompt } from "@/lib/prompts";
import type { ResearchBrief, ResearchProgress } from "@/lib/protocol/research";
import type { ChatRequestBody, ScriptedReply } from "@/tests/fake-ollama/server";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
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

/**
 * Research mode behind POST /api/chat (docs/research.md, "Research mode"): the brief turn, the
 * research turn of an edited brief, `researchAutoStart`, Stop, the budgets and the body's rules,
 * through the fake Ollama and the fake web.
 */

const fake = setupFakeOllama();
const app = setupAppEnv(fake);

const section = (id: string, title: string) => ({ id, title, questions: [`What about ${title}?`] });
const BRIEF: ResearchBrief = {
  goal: "Heat pumps in Europe",
  scope: "Homes, 2020 on",
  sections: [section("s1", "Costs"), section("s2", "Savings"), section("s3", "Limits")],
};

const toolName = (req: ChatRequestBody) => req.tools?.[0]?.function.name;
const userText = (req: ChatRequestBody) =>
  String([...(req.messages ?? [])].reverse().find((m) => m.role === "user")?.content ?? "");
const systemText = (req: ChatRequestBody) => String(req.messages?.find((m) => m.role === "system")?.content ?? "");
const toolResults = (req: ChatRequestBody) => (req.messages ?? []).filter((m) => m.role === "tool").length;

interface ResearchModel {
  /** What `make_brief` returns. */
  brief?: Record<string, unknown>;
  /** The pages a section reads, one per model call, by its title. */
  pages?: (title: string) => string[];
  /** A writer's reply for a section (by title), given the findings it was sent. */
  write?: (title: string, findings: string) => ScriptedReply;
  /** The verifier's verdict on every claim. */
  verdict?: string;
  /** The model calls that never answer (until the run is stopped). */
  hang?: (req: ChatRequestBody) => boolean;
}

/**
 * A fake model playing every part of a research run: the brief (`make_brief`), each section's
 * researcher (reads its pages with `scrape_url`, then reports), the writer of each section (cites
 * the first source its findings list), the summary, the verifier (`judge_citation`) and the title.
 */
function researchModel({
  brief = { goal: BRIEF.goal, scope: BRIEF.scope, sections: BRIEF.sections, clarifying_questions: [] },
  pages = (title) => [`/${title.toLowerCase()}`],
  write = (title, findings) => ({ chunks: [`${title} text `, `[${/\[(\d+)\]/.exec(findings)?.[1] ?? "?"}].`] }),
  verdict = "supported",
  hang = () => false,
}: ResearchModel = {}) {
  fake().setDefaultResponder((req) => {
    if (hang(req)) return { hang: true };
    if (toolName(req) === "make_brief") return { toolCalls: [{ name: "make_brief", arguments: brief }] };
    if (toolName(req) === "judge_citation") {
      return { toolCalls: [{ name: "judge_citation", arguments: { verdict, reason: "The page says so." } }] };
    }
    const text = userText(req);
    const researching = /Section: (.*)\nIt must answer/.exec(text);
    if (researching && req.tools) {
      const title = researching[1] ?? "";
      const next = pages(title)[toolResults(req)];
      return next
        ? { toolCalls: [{ name: "scrape_url", arguments: { url: `${app.web().url}${next}` } }] }
        : { content: `Notes on ${title}.` };
    }
    const writing = /Section: (.*)\nQuestions it answers/.exec(text);
    if (writing) return write(writing[1] ?? "", text.slice(text.indexOf("Findings:")));
    if (text.includes("The report:")) return { chunks: ["The summary."] };
    return { content: "A title" };
  });
  for (const title of ["costs", "savings", "limits"]) {
    for (const n of [1, 2]) {
      const path = n === 1 ? `/${title}` : `/${title}-${n}`;
      app.web().routes.set(path, { body: `<p>Page about ${title} (${n}). Heat pumps cost 100 euros.</p>` });
    }
  }
}

/** A writer whose sentence its section's source holds. */
const citing = (_title: string, findings: string): ScriptedReply => ({
  chunks: [`Heat pumps cost 100 euros [${/\[(\d+)\]/.exec(findings)?.[1]}].`],
});

async function post(body: Record<string, unknown>): Promise<Response> {
  return chat(jsonRequest("/api/chat", "POST", body));
}

async function runChat(body: Record<string, unknown>): Promise<ParsedEvent[]> {
  const response = await post(body);
  expect(response.status).toBe(200);
  const events = await readEvents(response);
  await waitIdle(fake(), String(body.conversationId));
  return events;
}

interface DetailMessage {
  id: string;
  role: string;
  content: string;
  status: string;
  run: { id: string; mode: string; status: string } | null;
}
const messagesOf = async (id: string) =>
  ((await (await getOne(jsonRequest("", "GET"), params({ id }))).json()) as { messages: DetailMessage[] }).messages;

const of = (events: ParsedEvent[], name: string) => events.filter((e) => e.event === name).map((e) => e.data);
const progressOf = (events: ParsedEvent[]) => of(events, "research") as unknown as ResearchProgress[];
const answerOf = (events: ParsedEvent[]) => {
  let text = "";
  for (const part of of(events, "answer")) {
    if (part.status === "start") text = "";
    if (part.status === "delta") text += String(part.content);
  }
  return text;
};
const modelsOf = (name: string) =>
  fake()
    .chatRequests()
    .filter((r) => toolName(r.body) === name)
    .map((r) => r.body.model);

afterEach(() => {
  delete process.env.RESEARCH_MAX_SOURCES;
  delete process.env.MAX_FILES_PER_CONVERSATION;
  resetConfigForTests();
});

describe("research mode: the brief turn", () => {
  it("proposes a brief made by the reasoning role, sends research_brief and stores the brief's Markdown as the answer", async () => {
    const roles = { roles: { reasoning: "qwen3:8b" } };
    expect((await patchSettings(jsonRequest("/api/settings", "PATCH", roles))).status).toBe(200);
    researchModel();
    const id = await newConversation();
    const events = await runChat({ conversationId: id, message: "Tell me about heat pumps", mode: "research" });

    expect(events[0]).toMatchObject({ event: "run", data: { mode: "research" } });
    expect(of(events, "research_brief")).toEqual([{ kind: "brief", brief: BRIEF }]);
    expect(progressOf(events).map((p) => p.phase)).toEqual(["brief"]);
    expect(answerOf(events)).toBe(briefText(BRIEF, "en"));
    expect(modelsOf("make_brief")).toEqual(["qwen3:8b"]);
    // Asking was allowed: the brief's prompt says when to ask.
    const briefRequest = fake()
      .chatRequests()
      .find((r) => toolName(r.body) === "make_brief");
    expect(systemText(briefRequest?.body ?? {})).toContain(prompt("en", "research_brief_may_ask"));
    // Nothing was researched.
    expect(
      fake()
        .chatRequests()
        .filter((r) => userText(r.body).includes("Section:")),
    ).toEqual([]);

    const [question, answer] = await messagesOf(id);
    expect(question?.content).toBe("Tell me about heat pumps");
    expect(answer).toMatchObject({ role: "assistant", content: briefText(BRIEF, "en"), status: "complete" });
    expect(answer?.run).toMatchObject({ mode: "research", status: "complete" });
    expect((await patchSettings(jsonRequest("/api/settings", "PATCH", { roles: { reasoning: null } }))).status).toBe(
      200,
    );
  });

  it("asks clarifying questions instead when the request is vague; the reply is a normal message and the next brief reads the whole conversation", async () => {
    researchModel({ brief: { goal: "", sections: [], clarifying_questions: ["Which country?", "Homes or offices?"] } });
    const id = await newConversation();
    const asked = await runChat({ conversationId: id, message: "Heat pumps?", mode: "research" });
    expect(of(asked, "research_brief")).toEqual([
      { kind: "questions", questions: ["Which country?", "Homes or offices?"] },
    ]);
    const questions = prompt("en", "research_questions_text", { questions: "1. Which country?\n2. Homes or offices?" });
    expect(answerOf(asked)).toBe(questions);
    expect((await messagesOf(id))[1]?.content).toBe(questions);

    researchModel();
    const briefed = await runChat({ conversationId: id, message: "Germany, homes", mode: "research" });
    expect(of(briefed, "research_brief")).toEqual([{ kind: "brief", brief: BRIEF }]);
    const second = fake()
      .chatRequests()
      .filter((r) => toolName(r.body) === "make_brief")
      .at(-1);
    const sent = JSON.stringify((second?.body as ChatRequestBody | undefined)?.messages ?? []);
    expect(sent).toContain("Heat pumps?");
    expect(sent).toContain("Which country?");
    expect(sent).toContain("Germany, homes");
  });
});

describe("research mode: the research turn", () => {
  it("researches the edited brief: the brief as the question, progress through every phase, the report streamed and stored, its sources stored", async () => {
    researchModel();
    const id = await newConversation();
    await runChat({ conversationId: id, message: "Tell me about heat pumps", mode: "research" });
    const briefAnswer = (await messagesOf(id))[1];
    // The user renamed a section, dropped one and added one.
    const edited: ResearchBrief = {
      ...BRIEF,
      sections: [{ ...section("s1", "Costs"), title: "Costs" }, section("s3", "Limits"), section("s9", "Savings")],
    };
    const events = await runChat({
      conversationId: id,
      mode: "research",
      parentId: briefAnswer?.id,
      research: { brief: edited },
    });

    expect(events[0]).toMatchObject({ event: "run", data: { mode: "research" } });
    expect(of(events, "research_brief")).toEqual([]);
    const progress = progressOf(events);
    expect([...new Set(progress.map((p) => p.phase))]).toEqual(["gathering", "writing", "verifying"]);
    const last = progress.at(-1);
    expect(last?.sections.map((s) => `${s.id} ${s.title} ${s.status} ${s.sources}`)).toEqual([
      "s1 Costs written 1",
      "s3 Limits written 1",
      "s9 Savings written 1",
    ]);
    expect(last).toMatchObject({ done: 3, total: 3, sourcesRead: 3, maxSources: 30, maxMs: 20 * 60_000 });

    const report = answerOf(events);
    expect(report).toMatch(/^# Heat pumps in Europe\n\n## Summary\n\nThe summary\.\n\n## Costs\n\nCosts text \[\d\]\./);
    expect(report.indexOf("## Costs")).toBeLessThan(report.indexOf("## Limits"));
    expect(report.indexOf("## Limits")).toBeLessThan(report.indexOf("## Savings"));
    expect(report).toContain("## References");
    for (const n of [1, 2, 3]) expect(report).toMatch(new RegExp(`\\[${n}\\] Page about|\\[${n}\\] .*http`));

    const messages = await messagesOf(id);
    expect(messages).toHaveLength(4);
    expect(messages[2]).toMatchObject({ role: "user", content: briefText(edited, "en") });
    expect(messages[3]).toMatchObject({ role: "assistant", content: report, status: "complete" });
    expect(messages[3]?.run).toMatchObject({ mode: "research", status: "complete" });

    const runId = String(events[0]?.data.runId);
    const sources = (await (await listSources(jsonRequest("", "GET"), params({ runId }))).json()) as {
      sources: { n: number; url: string }[];
    };
    expect(sources.sources.map((s) => s.url.replace(app.web().url, "")).sort()).toEqual([
      "/costs",
      "/limits",
      "/savings",
    ]);
  });

  it("researches a Japanese brief in Japanese: the question is the brief in Japanese, and a section that found nothing says so, nothing written in its place", async () => {
    // Every researcher answers without reading anything.
    fake().setDefaultResponder((req) =>
      userText(req).includes("The report:") || !req.tools ? { chunks: ["要約。"] } : { content: "見つかりません。" },
    );
    const ja: ResearchBrief = {
      goal: "欧州のヒートポンプ",
      scope: "",
      sections: [section("s1", "費用"), section("s2", "節約"), section("s3", "限界")],
    };
    const id = await newConversation();
    const events = await runChat({ conversationId: id, mode: "research", research: { brief: ja } });

    const [question, answer] = await messagesOf(id);
    expect(question?.content).toBe(briefText(ja, "ja"));
    expect(question?.content).toContain(prompt("ja", "research_scope_open"));
    const failed = prompt("ja", "research_section_failed", { reason: prompt("ja", "research_reason_no_sources") });
    for (const title of ["費用", "節約", "限界"]) expect(answer?.content).toContain(`## ${title}\n\n${failed}\n\n`);
    expect(
      progressOf(events)
        .at(-1)
        ?.sections.map((s) => s.status),
    ).toEqual(["failed", "failed", "failed"]);
    // No writer was asked to fill a failed section.
    expect(
      fake()
        .chatRequests()
        .filter((r) => /Questions it answers|答える問い/.test(userText(r.body))),
    ).toEqual([]);
  });

  it("with researchAutoStart the first turn makes a brief without asking and researches it in the same run", async () => {
    researchModel();
    const id = await newConversation();
    const settings = { settings: { researchAutoStart: true } };
    expect((await patchConversation(jsonRequest("", "PATCH", settings), params({ id }))).status).toBe(200);
    const events = await runChat({ conversationId: id, message: "Tell me about heat pumps", mode: "research" });

    expect(of(events, "research_brief")).toEqual([{ kind: "brief", brief: BRIEF }]);
    const briefRequest = fake()
      .chatRequests()
      .find((r) => toolName(r.body) === "make_brief");
    expect(systemText(briefRequest?.body ?? {})).toContain(prompt("en", "research_brief_no_asking"));
    expect([...new Set(progressOf(events).map((p) => p.phase))]).toEqual([
      "brief",
      "gathering",
      "writing",
      "verifying",
    ]);
    const messages = await messagesOf(id);
    expect(messages).toHaveLength(2);
    expect(messages[1]?.content).toBe(answerOf(events));
    expect(messages[1]?.content).toMatch(/^# Heat pumps in Europe\n/);
    expect(messages[1]?.content).toContain("## Limits\n\nLimits text [");
  });

  it("Stop while a section is being written ends the run stopped and keeps what was written as the answer", async () => {
    researchModel({
      write: (title, findings) =>
        title === "Savings" ? { hang: true } : { chunks: [`${title} text [${/\[(\d+)\]/.exec(findings)?.[1]}].`] },
    });
    const id = await newConversation();
    const response = await post({ conversationId: id, mode: "research", research: { brief: BRIEF } });
    expect(response.status).toBe(200);
    let written = "";
    const events = await readEvents(response, (event) => {
      if (event.event === "answer" && event.data.status === "delta") written += String(event.data.content);
      if (written.includes("## Savings")) void stop(jsonRequest("", "POST"), params({ id }));
      return false;
    });
    await waitIdle(fake(), id);

    expect(events.at(-1)).toMatchObject({ event: "done", data: { stopped: true } });
    const answer = (await messagesOf(id))[1];
    expect(answer).toMatchObject({ status: "stopped" });
    expect(answer?.content).toMatch(/^## Costs\n\nCosts text \[\d\]\.\n\n## Savings\n\n$/);
    expect(answer?.run).toMatchObject({ mode: "research", status: "stopped" });
  });
});

describe("research mode: Stop in every phase", () => {
  const hangs = (phase: string) => (req: ChatRequestBody) => {
    if (phase === "brief") return toolName(req) === "make_brief";
    if (phase === "gathering") return Boolean(req.tools) && /Section: Savings\nIt must answer/.test(userText(req));
    return toolName(req) === "judge_citation";
  };
  const sourcesOf = async (runId: string) =>
    ((await (await listSources(jsonRequest("", "GET"), params({ runId }))).json()) as { sources: unknown[] }).sources;

  it.each([
    ["brief", "", 0],
    ["gathering", "", 2],
    ["verifying", "# Heat pumps in Europe\n", 3],
  ])(
    "Stop in the %s phase ends the run stopped, keeping what was written and the sources read",
    async (phase, starts, read) => {
      const hang = hangs(phase);
      researchModel({ write: citing, hang });
      const id = await newConversation();
      const settings = { settings: { researchAutoStart: true } };
      expect((await patchConversation(jsonRequest("", "PATCH", settings), params({ id }))).status).toBe(200);
      const response = await post({ conversationId: id, message: "Tell me about heat pumps", mode: "research" });
      expect(response.status).toBe(200);
      let runId = "";
      const reading = readEvents(response, (event) => {
        if (event.event === "run") runId = String(event.data.runId);
        return false;
      });
      // The phase's model call is waiting, and every read the other sections make is stored.
      await expect
        .poll(
          async () =>
            fake()
              .chatRequests()
              .some((r) => hang(r.body)) && (await sourcesOf(runId)).length === read,
        )
        .toBe(true);
      expect((await stop(jsonRequest("", "POST"), params({ id }))).status).toBe(202);
      const events = await reading;
      await waitIdle(fake(), id);

      expect(events.at(-1)).toMatchObject({ event: "done", data: { stopped: true } });
      expect(progressOf(events).at(-1)?.phase).toBe(phase);
      const answer = (await messagesOf(id))[1];
      expect(answer).toMatchObject({ status: "stopped" });
      expect(answer?.run).toMatchObject({ mode: "research", status: "stopped" });
      if (starts) expect(answer?.content.startsWith(starts)).toBe(true);
      else expect(answer?.content).toBe("");
      expect(await sourcesOf(runId)).toHaveLength(read);
      if (phase === "verifying") {
        // The finder's check of the claims stands: the references are not claims.
        const reports = of(events, "citations") as { checks: { verdict: string }[]; verifierModel?: string }[];
        expect(reports).toHaveLength(1);
        expect(reports[0]?.verifierModel).toBeUndefined();
        expect(reports[0]?.checks.map((check) => check.verdict)).toEqual(["found", "found", "found"]);
      }
    },
  );
});

describe("research mode: verification", () => {
  it("checks every citation of the report with the fast role's verifier: one citations event after the verifying phase, stored with the answer", async () => {
    expect((await patchSettings(jsonRequest("/api/settings", "PATCH", { roles: { fast: "qwen3:8b" } }))).status).toBe(
      200,
    );
    researchModel({ write: citing, verdict: "partly" });
    const id = await newConversation();
    const events = await runChat({ conversationId: id, mode: "research", research: { brief: BRIEF } });
    expect((await patchSettings(jsonRequest("/api/settings", "PATCH", { roles: { fast: null } }))).status).toBe(200);

    expect([...new Set(progressOf(events).map((p) => p.phase))]).toEqual(["gathering", "writing", "verifying"]);
    const reports = of(events, "citations");
    // Checked once: the run's end stores the verified report instead of running the finder again.
    expect(reports).toHaveLength(1);
    const report = reports[0] as { checks: { verdict: string; n: number }[]; verifierModel?: string };
    expect(report.verifierModel).toBe("qwen3:8b");
    expect(report.checks).toHaveLength(3);
    expect(report.checks.every((check) => check.verdict === "partly")).toBe(true);
    expect(modelsOf("judge_citation")).toEqual(["qwen3:8b", "qwen3:8b", "qwen3:8b"]);
    const names = events.map((e) => e.event);
    expect(names.indexOf("citations")).toBeLessThan(names.indexOf("done"));
    const last = progressOf(events).at(-1);
    expect(last?.phase).toBe("verifying");
    expect(names.lastIndexOf("research")).toBeLessThan(names.indexOf("citations"));

    const detail = (await (await getOne(jsonRequest("", "GET"), params({ id }))).json()) as {
      messages: { citations?: { verifierModel?: string; checks: unknown[] } }[];
    };
    expect(detail.messages[1]?.citations).toMatchObject({ verifierModel: "qwen3:8b" });
    expect(detail.messages[1]?.citations?.checks).toHaveLength(3);
  });

  it("keeps the run's web sources in the conversation's library: stored once as fetched files, found by search_files' index", async () => {
    researchModel({ write: citing, verdict: "supported" });
    const id = await newConversation();
    const events = await runChat({ conversationId: id, mode: "research", research: { brief: BRIEF } });
    const runId = String(events[0]?.data.runId);
    const db = await getDb();
    const sources = await runSourcesWhole(db, { runId });
    expect(sources.length).toBeGreaterThan(0);
    const kept = async () => (await listFileSummaries(db, { conversationId: id })).filter((file) => file.sourceUrl);
    await vi.waitFor(async () => expect(await kept()).toHaveLength(sources.length), { timeout: 10_000 });
    expect((await kept()).map((file) => file.sourceUrl).sort()).toEqual(sources.map((source) => source.url).sort());
    const source = sources[0];
    const word = source?.text.match(/\p{L}{4,}/u)?.[0] ?? "";
    expect(word).not.toBe("");
    await vi.waitFor(
      async () => {
        const { hits } = await searchLibrary(db, {
          scope: { conversationId: id },
          terms: parseQuery(word),
          limit: 10,
          offset: 0,
        });
        expect(hits.length).toBeGreaterThan(0);
      },
      { timeout: 10_000 },
    );
    // The same sources again (a second run, a retry) are not stored twice.
    await keepResearchSources(db, { conversationId: id, sources, limits: fileLimits(getConfig()) });
    expect(await kept()).toHaveLength(sources.length);
  });

  it("sources a quota refuses are told in the run's trail: a sources_not_kept notice with how many were kept and which quota, stored with the run", async () => {
    process.env.MAX_FILES_PER_CONVERSATION = "1";
    resetConfigForTests();
    researchModel({ write: citing });
    const id = await newConversation();
    const events = await runChat({ conversationId: id, mode: "research", research: { brief: BRIEF } });
    const runId = String(events[0]?.data.runId);
    const sources = await runSourcesWhole(await getDb(), { runId });
    expect(sources).toHaveLength(3);
    const about = { code: "sources_not_kept", kept: 1, notKept: 2, quota: "conversation_files" };
    const notices = of(events, "step").filter(
      (s) => s.type === "notice" && (s.about as { code?: string } | undefined)?.code === "sources_not_kept",
    );
    expect(notices).toEqual([
      expect.objectContaining({
        about,
        text: prompt("en", "notice_sources_not_kept_conversation_files", { kept: "1", notKept: "2" }),
      }),
    ]);
    const names = events.map((e) => e.event);
    expect(names.lastIndexOf("step")).toBeLessThan(names.indexOf("done"));
    // Stored with the run: a reload shows it in the trail.
    const detail = (await (await getOne(jsonRequest("", "GET"), params({ id }))).json()) as {
      messages: { run: { steps: { type: string; about?: unknown }[] } | null }[];
    };
    expect(detail.messages[1]?.run?.steps.filter((s) => s.type === "notice")).toContainEqual(
      expect.objectContaining({ about }),
    );
    expect((await listFileSummaries(await getDb(), { conversationId: id })).filter((f) => f.sourceUrl)).toHaveLength(1);
  });

  it("without a fast role the conversation's model verifies", async () => {
    researchModel({ write: citing });
    const id = await newConversation();
    const events = await runChat({ conversationId: id, mode: "research", research: { brief: BRIEF } });
    const reports = of(events, "citations") as { verifierModel?: string; checks: { verdict: string }[] }[];
    expect(reports).toHaveLength(1);
    expect(reports[0]?.verifierModel).toBe("llama3.2:latest");
    expect(reports[0]?.checks.map((check) => check.verdict)).toEqual(["supported", "supported", "supported"]);
  });
});

describe("research mode: follow-ups", () => {
  it("a follow-up sent while a research run works becomes the next turn once it completes, an ordinary one", async () => {
    researchModel();
    const id = await newConversation();
    const response = await post({ conversationId: id, mode: "research", research: { brief: BRIEF } });
    expect(response.status).toBe(200);
    let sent = false;
    await readEvents(response, (event) => {
      if (!sent && event.event === "research") {
        sent = true;
        void interrupt(jsonRequest("", "POST", { message: "And in Japan?" }), params({ id }));
      }
      return false;
    });
    await expect.poll(async () => (await messagesOf(id)).length, { timeout: 10_000 }).toBe(4);
    await waitIdle(fake(), id);
    const messages = await messagesOf(id);
    expect(messages.map((m) => `${m.role}:${m.run?.mode ?? ""}`)).toEqual([
      "user:",
      "assistant:research",
      "user:",
      "assistant:native",
    ]);
    expect(messages[2]?.content).toBe("And in Japan?");
    expect(messages[1]?.content).toMatch(/^# Heat pumps in Europe\n/);
  });
});

describe("research mode: budgets", () => {
  it("RESEARCH_MAX_SOURCES=2: no read past the second source, the progress says the budget is reached, a notice says so", async () => {
    process.env.RESEARCH_MAX_SOURCES = "2";
    resetConfigForTests();
    // Each section would read two pages.
    researchModel({ pages: (title) => [`/${title.toLowerCase()}`, `/${title.toLowerCase()}-2`] });
    const id = await newConversation();
    const events = await runChat({ conversationId: id, mode: "research", research: { brief: BRIEF } });

    const last = progressOf(events).at(-1);
    expect(last).toMatchObject({ sourcesRead: 2, maxSources: 2, budgetsReached: ["sources"] });
    const steps = of(events, "step");
    const read = steps.filter((s) => s.type === "tool_result" && s.ok === true && s.source);
    expect(read).toHaveLength(2);
    const refused = steps.filter((s) => s.type === "tool_result" && s.ok === false);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((s) => String(s.observation).includes(prompt("en", "research_tool_sources")))).toBe(true);
    const notice = prompt("en", "research_budget_sources", { max: "2", minutes: "20" });
    expect(steps.filter((s) => s.type === "notice" && s.text === notice)).toHaveLength(1);

    const runId = String(events[0]?.data.runId);
    const sources = (await (await listSources(jsonRequest("", "GET"), params({ runId }))).json()) as {
      sources: unknown[];
    };
    expect(sources.sources).toHaveLength(2);
  });
});

describe("research mode: the body's rules", () => {
  const good = { mode: "research", research: { brief: BRIEF } };
  it.each([
    ["a message and a brief", { ...good, message: "hi" }, "message: not with research: the brief is the question"],
    ["research without mode research", { research: { brief: BRIEF } }, 'research: only with mode "research"'],
    ["research with mode dag", { ...good, mode: "dag" }, 'research: only with mode "research"'],
    [
      "a brief of 2 sections",
      { ...good, research: { brief: { ...BRIEF, sections: BRIEF.sections.slice(0, 2) } } },
      "research.brief.sections: a brief has 3 to 8 sections",
    ],
    [
      "a brief of 9 sections",
      {
        ...good,
        research: { brief: { ...BRIEF, sections: Array.from({ length: 9 }, (_, i) => section(`s${i}`, `T${i}`)) } },
      },
      "research.brief.sections: a brief has 3 to 8 sections",
    ],
    [
      "a brief whose ids repeat",
      { ...good, research: { brief: { ...BRIEF, sections: [...BRIEF.sections.slice(0, 2), section("s1", "Again")] } } },
      'research.brief.sections.2.id: "s1" is used twice',
    ],
    [
      "a research with regenerate",
      { ...good, regenerate: "m1" },
      "regenerate: not with research: the brief is the question",
    ],
  ])("%s → 400, nothing stored", async (_name, body, message) => {
    researchModel();
    const id = await newConversation();
    const said = await expectApiError(await post({ conversationId: id, ...body }), 400, "bad_request:validation");
    expect(said).toBe(`Invalid request: ${message}`);
    expect(await messagesOf(id)).toEqual([]);
    expect(fake().chatRequests()).toEqual([]);
  });

  it("a research whose parentId is not an answer of the conversation → 400", async () => {
    researchModel();
    const id = await newConversation();
    await expectApiError(await post({ conversationId: id, ...good, parentId: "nope" }), 400, "bad_request:parent");
    expect(await messagesOf(id)).toEqual([]);
  });
});

describe("research mode: a reload", () => {
  it("replays the stored research events: the brief, every progress event and the report", async () => {
    researchModel();
    const id = await newConversation();
    const settings = { settings: { researchAutoStart: true } };
    expect((await patchConversation(jsonRequest("", "PATCH", settings), params({ id }))).status).toBe(200);
    const events = await runChat({ conversationId: id, message: "Tell me about heat pumps", mode: "research" });
    const runId = String(events[0]?.data.runId);
    const replayed = await readEvents(
      await replay(jsonRequest(`/api/runs/${runId}/events?after=0`, "GET"), params({ runId })),
    );
    const stored = (list: ParsedEvent[]) => list.filter((e) => e.id && !e.id.includes(".") && e.event !== "title");
    expect(stored(replayed)).toEqual(stored(events));
    expect(of(replayed, "research").length).toBeGreaterThan(3);
    expect(of(replayed, "research_brief")).toHaveLength(1);
    expect(answerOf(replayed)).toBe(answerOf(events));
  });
});

describe("research mode: resuming a run a restart interrupted", () => {
  /** A research run whose Limits section is being written when the server shuts down (as at a restart). */
  async function interruptedRun(id: string, hanging: { limits: boolean }) {
    researchModel({
      pages: (title) =>
        title === "Limits" && !hanging.limits ? ["/limits", "/limits-2"] : [`/${title.toLowerCase()}`],
      write: (title, findings) =>
        title === "Limits" && hanging.limits
          ? { hang: true }
          : { chunks: [`${title} text [${[...findings.matchAll(/\[(\d+)\]/g)].map((m) => m[1]).join("][")}].`] },
    });
    const response = await post({ conversationId: id, mode: "research", research: { brief: BRIEF } });
    expect(response.status).toBe(200);
    let written = "";
    const events = await readEvents(response, (event) => {
      if (event.event === "answer" && event.data.status === "delta") written += String(event.data.content);
      return written.includes("## Limits");
    });
    expect(await interruptLiveRuns(await getDb(), getLiveRuns())).toBe(1);
    await waitIdle(fake(), id);
    return String(events[0]?.data.runId);
  }
  const sourcesOf = async (runId: string) =>
    (
      (await (await listSources(jsonRequest("", "GET"), params({ runId }))).json()) as {
        sources: { n: number; url: string; retrievedAt: number }[];
      }
    ).sources.map((source) => ({ ...source, url: source.url.replace(app.web().url, "") }));

  it("keeps the finished sections and the sources under their numbers, researches only the rest and stores the whole report", async () => {
    const hanging = { limits: true };
    const id = await newConversation();
    const oldRunId = await interruptedRun(id, hanging);
    const interrupted = (await messagesOf(id))[1];
    expect(interrupted).toMatchObject({ status: "interrupted", run: { mode: "research", status: "interrupted" } });
    const oldSources = await sourcesOf(oldRunId);
    expect(oldSources.map((source) => source.url).sort()).toEqual(["/costs", "/limits", "/savings"]);
    const kept = interrupted?.content.slice(0, interrupted.content.indexOf("## Limits")) ?? "";
    expect(kept).toMatch(/^## Costs\n\nCosts text \[\d\]\.\n\n## Savings\n\nSavings text \[\d\]\.\n\n$/);

    hanging.limits = false;
    const before = fake().chatRequests().length;
    const events = await runChat({ conversationId: id, mode: "research", resume: interrupted?.id });

    // Only Limits is researched and written again; Costs and Savings are neither gathered nor written.
    const asked = fake()
      .chatRequests()
      .slice(before)
      .map((request) => userText(request.body));
    expect(asked.some((text) => /Section: (Costs|Savings)\n/.test(text))).toBe(false);
    expect(asked.some((text) => text.includes("Section: Limits\nIt must answer"))).toBe(true);
    expect(progressOf(events)[0]?.sections.map((s) => `${s.id} ${s.status}`)).toEqual([
      "s1 written",
      "s2 written",
      "s3 pending",
    ]);

    // The report is whole: the kept sections as they were, the new one citing on after them, summary and references over all.
    const report = answerOf(events);
    expect(report.startsWith(`# ${BRIEF.goal}\n\n## Summary\n\nThe summary.\n\n${kept}## Limits\n\n`)).toBe(true);
    const newRunId = String(events[0]?.data.runId);
    const newSources = await sourcesOf(newRunId);
    expect(newSources.slice(0, 3)).toEqual(oldSources);
    expect(newSources[3]).toMatchObject({ n: 4, url: "/limits-2" });
    const limitsN = oldSources.find((source) => source.url === "/limits")?.n;
    expect(report).toContain(`Limits text [${limitsN}][4].`);
    const references = report.slice(report.indexOf("## References"));
    for (const n of [1, 2, 3, 4]) expect(references).toContain(`[${n}] `);

    // A new version of the interrupted answer, to the same question; the report's citations checked against the copies.
    const messages = await messagesOf(id);
    expect(messages).toHaveLength(2);
    expect(messages[1]).toMatchObject({ content: report, status: "complete", run: { mode: "research" } });
    expect(of(events, "citations")).toHaveLength(1);
  });

  it("refuses what it cannot resume: an answer not of a research run (400), a research run not interrupted (409)", async () => {
    researchModel();
    const id = await newConversation();
    await runChat({ conversationId: id, message: "Tell me about heat pumps", mode: "research" });
    // A brief turn never researched: nothing to resume.
    const briefAnswer = (await messagesOf(id))[1];
    await expectApiError(
      await post({ conversationId: id, mode: "research", resume: briefAnswer?.id }),
      400,
      "bad_request:not_research",
    );
    await runChat({ conversationId: id, mode: "research", parentId: briefAnswer?.id, research: { brief: BRIEF } });
    const report = (await messagesOf(id))[3];
    await expectApiError(
      await post({ conversationId: id, mode: "research", resume: report?.id }),
      409,
      "conflict:not_interrupted",
    );
    const plain = await newConversation();
    fake().setDefaultResponder(() => ({ content: "Plain." }));
    await runChat({ conversationId: plain, message: "hi" });
    const answer = (await messagesOf(plain))[1];
    await expectApiError(
      await post({ conversationId: plain, mode: "research", resume: answer?.id }),
      400,
      "bad_request:not_research",
    );
    // Another conversation's answer is not an answer of this one.
    await expectApiError(
      await post({ conversationId: id, mode: "research", resume: answer?.id }),
      400,
      "bad_request:regenerate",
    );
    expect(await messagesOf(id)).toHaveLength(4);
  });

  it("takes a resume only with mode research and nothing else to answer", async () => {
    const id = await newConversation();
    const said = await expectApiError(await post({ conversationId: id, resume: "m1" }), 400, "bad_request:validation");
    expect(said).toBe('Invalid request: resume: only with mode "research"');
    const withMessage = await post({ conversationId: id, mode: "research", resume: "m1", message: "hi" });
    await expectApiError(withMessage, 400, "bad_request:validation");
  });
});
