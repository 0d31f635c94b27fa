import { describe, expect, it } from "vitest";
import type { StoredRunEvent } from "@/lib/db/schema";
import { allSampleEvents, sampleEvents } from "@/tests/support/run-event-samples";
import { runEventDataSchemas } from "./event-schema";
import { exportDocumentSchema, exportedColumns, runEventColumns } from "./format";

describe("an imported notice step", () => {
  const notice = (about: unknown) => ({ seq: 3, at: 0, iteration: 2, type: "notice", text: "sentence", about });

  it("keeps a notice's data in the shape the trail words it from", () => {
    const about = { code: "cut", what: "tool_result", tool: "scrape_url", kept: 10, total: 20 };
    expect(runEventDataSchemas.step.safeParse(notice(about)).success).toBe(true);
    expect(runEventDataSchemas.step.safeParse({ ...notice(undefined), about: undefined }).success).toBe(true);
  });

  it("refuses a notice whose data the trail could not word: an unknown kind of cut, a missing figure", () => {
    expect(
      runEventDataSchemas.step.safeParse(notice({ code: "cut", what: "__proto__", kept: 1, total: 2 })).success,
    ).toBe(false);
    expect(
      runEventDataSchemas.step.safeParse(notice({ code: "tool_budget", budget: "context", limit: 5 })).success,
    ).toBe(false);
    expect(runEventDataSchemas.step.safeParse(notice({ code: "iteration_limit", iterations: -1 })).success).toBe(false);
  });
});

describe("an imported notice of a cut request, a research budget, a DAG fallback or an unreachable MCP server", () => {
  const notice = (about: unknown) => ({ seq: 3, at: 0, iteration: 0, type: "notice", text: "sentence", about });
  const parsed = (about: unknown) => runEventDataSchemas.step.safeParse(JSON.parse(JSON.stringify(notice(about))));

  it("keeps each notice's data through export and import", () => {
    for (const about of [
      { code: "cut", what: "request", call: "planner", kept: 6120, total: 9800 },
      { code: "cut", what: "request", call: "analyzer", kept: 1, total: 2 },
      { code: "cut", what: "request", call: "tool_selection", kept: 1, total: 2 },
      { code: "cut", what: "request", call: "brief", kept: 1, total: 2 },
      { code: "research_budget", budget: "sources", max: 30 },
      { code: "research_budget", budget: "time", minutes: 20 },
      { code: "dag_fallback", problem: { kind: "cycle", steps: ["a", "b"] } },
      { code: "dag_fallback", problem: { kind: "empty" } },
      { code: "dag_fallback", problem: { kind: "single" } },
      { code: "mcp_unavailable", server: "files" },
      { code: "sources_not_kept", kept: 1, notKept: 2, quota: "user_storage" },
    ]) {
      const result = parsed(about);
      expect(result.success && result.data, JSON.stringify(about)).toMatchObject({ about });
    }
  });

  it("still imports an older export's notice of these, which had only its sentence", () => {
    const old = { seq: 3, at: 0, iteration: 0, type: "notice", text: "The MCP server files could not be reached." };
    expect(runEventDataSchemas.step.safeParse(old).success).toBe(true);
  });

  it("refuses data the trail could not word: an unknown call, a cycle of no step, a fallback without its problem", () => {
    expect(parsed({ code: "cut", what: "request", call: "oracle", kept: 1, total: 2 }).success).toBe(false);
    expect(parsed({ code: "cut", what: "request", kept: 1, total: 2 }).success).toBe(false);
    expect(parsed({ code: "research_budget", budget: "sources", minutes: 20 }).success).toBe(false);
    expect(parsed({ code: "dag_fallback", problem: { kind: "cycle", steps: [] } }).success).toBe(false);
    expect(parsed({ code: "dag_fallback", problem: { kind: "bad_weather" } }).success).toBe(false);
    expect(parsed({ code: "dag_fallback" }).success).toBe(false);
    expect(parsed({ code: "mcp_unavailable" }).success).toBe(false);
    expect(parsed({ code: "sources_not_kept", kept: 1, notKept: 2, quota: "disk" }).success).toBe(false);
  });
});

describe("an imported tool selection step", () => {
  it("keeps fellBack: a selection that failed stays a fallback after export and import", () => {
    const step = {
      seq: 1,
      at: 0,
      iteration: 0,
      type: "tool_selection",
      selected: ["a", "b"],
      total: 2,
      fellBack: true,
    };
    const parsed = runEventDataSchemas.step.safeParse(JSON.parse(JSON.stringify(step)));
    expect(parsed.success && parsed.data).toMatchObject({ fellBack: true });
    expect(runEventDataSchemas.step.safeParse({ ...step, fellBack: "yes" }).success).toBe(false);
  });
});

describe("an imported plan", () => {
  const plan = {
    round: 2,
    steps: [{ id: "a", task: "t", dependencies: [], tool_hint: null, model_hint: null }],
    verdict: { achieved: false, confidence: 0.4, reasoning: "not enough" },
  };

  it("keeps the analyzer's verdict that asked for it through export and import", () => {
    const parsed = runEventDataSchemas.plan.safeParse(JSON.parse(JSON.stringify(plan)));
    expect(parsed.success && parsed.data).toMatchObject({ verdict: plan.verdict });
  });

  it("refuses a verdict the card could not show: a confidence outside 0 to 1", () => {
    expect(runEventDataSchemas.plan.safeParse({ ...plan, verdict: { ...plan.verdict, confidence: 7 } }).success).toBe(
      false,
    );
  });
});

describe("an imported structured-call record", () => {
  it("keeps how a tool selection and a plan were made, and refuses a level that is not one", () => {
    const structured = { level: "json_mode", calls: 3 };
    const step = { seq: 1, at: 0, iteration: 0, type: "tool_selection", selected: ["a"], total: 20, structured };
    expect(runEventDataSchemas.step.safeParse(step).success && structured).toEqual(structured);
    const plan = { round: 1, steps: [], structured };
    const parsed = runEventDataSchemas.plan.safeParse(JSON.parse(JSON.stringify(plan)));
    expect(parsed.success && parsed.data).toMatchObject({ structured });
    expect(runEventDataSchemas.plan.safeParse({ ...plan, structured: { level: "magic", calls: 1 } }).success).toBe(
      false,
    );
  });
});

describe("an imported run event", () => {
  const eventSchema = exportDocumentSchema({ maxMessages: 1, maxInstructionsChars: 1 }).shape.runs.element.shape.events
    .element;

  it.each(allSampleEvents())("accepts a %s event as the export writes it, with its data unchanged", (type, data) => {
    const row: StoredRunEvent = { runId: "r1", seq: 4, type, data: data as StoredRunEvent["data"], createdAt: 1 };
    const written = JSON.parse(JSON.stringify(exportedColumns(row, runEventColumns)));
    const parsed = eventSchema.safeParse(written);
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(parsed.data).toEqual({ seq: 4, type, data, createdAt: 1 });
  });

  it("holds the import to the live protocol: paging says where its footer begins, an error keeps its details", () => {
    const paged = sampleEvents.step.find((step) => step.type === "tool_result" && step.paging);
    expect(runEventDataSchemas.step.safeParse(paged).success).toBe(true);
    const withFooterDataOnly = { ...paged, paging: { nextToken: "T", sourcePages: { first: 1, last: 2, total: 3 } } };
    expect(runEventDataSchemas.step.safeParse(withFooterDataOnly).success).toBe(false);
    const error = { code: "upstream:ollama", message: "m", retryable: false, details: { model: "x" } };
    expect(runEventDataSchemas.error.safeParse(error).success).toBe(true);
  });

  it("refuses an event whose data is not the protocol's, naming the field", () => {
    const [, step] = allSampleEvents().find(([type]) => type === "step") ?? [];
    const parsed = eventSchema.safeParse({
      seq: 1,
      type: "step",
      data: { ...(step as object), seq: "one" },
      createdAt: 1,
    });
    expect(parsed.error?.issues.map((issue) => issue.path.join("."))).toEqual(["data.seq"]);
  });
});
