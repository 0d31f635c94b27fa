import type { AgentStep, AgentStepType, RunEventData, RunEventName, RunStep } from "@/lib/protocol/run-events";

/**
 * One sample of every kind of run event and every kind of step, with their optional fields set,
 * for the protocol's round-trip tests. Typed by the protocol's own names: a new event or step kind
 * without a sample here is a compile error.
 */

export const sampleAgentSteps: { [T in AgentStepType]: Extract<AgentStep, { type: T }>[] } = {
  tool_call: [{ type: "tool_call", iteration: 1, callId: "c1", tool: "web_search", args: { query: "q" } }],
  tool_result: [
    {
      type: "tool_result",
      iteration: 1,
      callId: "c1",
      tool: "web_search",
      ok: true,
      observation: '[{"title":"t"}]',
      durationMs: 12,
      results: [{ title: "t", url: "https://example.com/", snippet: "s" }],
    },
    {
      type: "tool_result",
      iteration: 2,
      callId: "c2",
      tool: "pdf_to_text",
      ok: true,
      observation: "Page text\n\n---page-info---\nhas_more: true\nnext_token: T",
      paging: { nextToken: "T", sourcePages: { first: 1, last: 3, total: 9 }, bodyChars: 9 },
      durationMs: 40,
      source: { n: 1, url: "https://example.com/a.pdf", title: "A" },
    },
    {
      type: "tool_result",
      iteration: 2,
      callId: "c3",
      tool: "mcp__draw",
      ok: true,
      observation: "The tool made a file.",
      durationMs: 3,
      artifact: { filename: "a.png", mimeType: "image/png", content: "iVBORw0KGgo=" },
    },
    {
      type: "tool_result",
      iteration: 3,
      callId: "c4",
      tool: "scrape_url",
      ok: false,
      errorKind: "blocked_url",
      observation: "The address is not allowed.",
      durationMs: 1,
    },
  ],
  thinking: [{ type: "thinking", iteration: 1, text: "Let me think.", durationMs: 800 }],
  interrupt: [{ type: "interrupt", iteration: 2, interrupts: [{ id: "i1", text: "and in French" }] }],
  tool_selection: [
    {
      type: "tool_selection",
      iteration: 0,
      selected: ["web_search"],
      total: 20,
      fellBack: true,
      structured: { level: "json_mode", calls: 2 },
    },
  ],
  notice: [
    {
      type: "notice",
      iteration: 2,
      text: "A result was cut.",
      about: { code: "cut", what: "tool_result", tool: "scrape_url", kept: 10, total: 20 },
    },
    { type: "notice", iteration: 3, text: "Budget.", about: { code: "tool_budget", budget: "rounds", rounds: 5 } },
    {
      type: "notice",
      iteration: 0,
      text: "The planner's request was cut.",
      about: { code: "cut", what: "request", call: "planner", kept: 10, total: 20 },
    },
    {
      type: "notice",
      iteration: 0,
      text: "No usable plan.",
      about: { code: "dag_fallback", problem: { kind: "cycle", steps: ["a", "b"] } },
    },
    { type: "notice", iteration: 0, text: "Sources.", about: { code: "research_budget", budget: "sources", max: 30 } },
    { type: "notice", iteration: 0, text: "Unreachable.", about: { code: "mcp_unavailable", server: "files" } },
    {
      type: "notice",
      iteration: 0,
      text: "Not kept.",
      about: { code: "sources_not_kept", kept: 1, notKept: 2, quota: "conversation_files" },
    },
    { type: "notice", iteration: 4, text: "A plain notice." },
  ],
  approval_request: [
    {
      type: "approval_request",
      iteration: 1,
      approvalId: "a1",
      callId: "c5",
      tool: "files__write",
      server: "files",
      toolName: "write",
      args: { path: "x" },
      annotations: { destructiveHint: true },
      expiresAt: 1_700_000_000_000,
    },
  ],
  approval_decision: [
    {
      type: "approval_decision",
      iteration: 1,
      approvalId: "a1",
      callId: "c5",
      tool: "files__write",
      decision: "timeout",
      decidedBy: null,
    },
  ],
};

/** Every sample step as a `step` event: numbered, timed, and one of each in a DAG step. */
const sampleRunSteps: RunStep[] = Object.values(sampleAgentSteps)
  .flat()
  .flatMap((step, index) => [
    { ...step, seq: index + 1, at: 1_700_000_000_000 + index },
    { ...step, seq: index + 100, at: 1_700_000_000_000, stepId: "s1" },
  ]);

const done: RunEventData<"done"> = {
  messageId: "m1",
  iterations: 3,
  usage: { inputTokens: 10, outputTokens: 20, totalTokens: 30, generationMs: 400 },
  elapsedMs: 5000,
};

export const sampleEvents: { [K in RunEventName]: RunEventData<K>[] } = {
  run: [
    { runId: "r1", conversationId: "c1", userMessageId: "u1", model: "llama3.2", mode: "dag" },
    { runId: "r2", conversationId: "c1", userMessageId: "u2", model: "llama3.2", mode: "research" },
  ],
  step: sampleRunSteps,
  plan: [
    {
      round: 2,
      steps: [
        { id: "a", task: "find A", dependencies: [], tool_hint: "web_search", model_hint: "fast" },
        { id: "b", task: "compare", dependencies: ["a"], tool_hint: null, model_hint: null },
      ],
      verdict: { achieved: false, confidence: 0.4, reasoning: "not enough" },
      structured: { level: "native", calls: 1 },
    },
  ],
  step_progress: [
    { stepId: "a", status: "running", model: "m", at: 1 },
    { stepId: "a", status: "done", model: "m", result: "found", at: 2, durationMs: 1 },
  ],
  compact: [{ stepId: "a", originalMessages: 12, keptMessages: 4, tokensBefore: 9000, tokensAfter: 2000 }],
  answer: [{ status: "start" }, { status: "delta", content: "héllo 日本" }, { status: "done" }],
  thinking: [{ iteration: 0, stepId: "a", delta: "hmm" }],
  error: [
    {
      code: "upstream:ollama_timeout",
      message: "Ollama did not answer.",
      retryable: true,
      details: { model: "llama3.2", seconds: 30 },
    },
  ],
  citations: [
    {
      checks: [
        {
          sentence: "The bridge opened in 1932.",
          start: 0,
          end: 30,
          n: 1,
          verdict: "supported",
          passage: {
            text: "It opened in 1932.",
            start: 10,
            end: 28,
            pages: { first: 2, last: 2 },
            matched: ["opened", "1932"],
          },
          missing: [],
          reason: "The passage gives the year.",
        },
        {
          sentence: "It cost 9 million.",
          start: 31,
          end: 52,
          n: 2,
          verdict: "not_found",
          passage: null,
          missing: ["9"],
        },
      ],
      checkedAt: 1_700_000_000_000,
      verifierModel: "qwen3:4b",
    },
    { checks: [], checkedAt: 1_700_000_000_000 },
  ],
  done: [
    done,
    {
      ...done,
      stopped: true,
      interrupted: true,
      fallback: true,
      iterationLimit: true,
      pendingInterrupts: [{ id: "i2", text: "later" }],
      titlePending: true,
    },
  ],
  title: [{ title: "A conversation" }],
  research_brief: [
    {
      kind: "brief",
      brief: {
        goal: "Compare heat pumps",
        scope: "Homes in Europe, 2020 on",
        sections: [
          { id: "s1", title: "Costs", questions: ["What do they cost?"] },
          { id: "s2", title: "Savings", questions: ["What do they save?", "How fast?"] },
          { id: "s3", title: "Limits", questions: ["Where do they fail?"] },
        ],
      },
    },
    { kind: "questions", questions: ["Which country?", "Air or ground source?"] },
  ],
  research: [
    {
      phase: "gathering",
      sections: [
        { id: "s1", title: "Costs", status: "gathered", sources: 3 },
        { id: "s2", title: "Savings", status: "failed", sources: 0, reason: "The model failed." },
        { id: "s3", title: "Limits", status: "gathering", sources: 1 },
      ],
      done: 0,
      total: 3,
      sourcesRead: 4,
      maxSources: 30,
      elapsedMs: 61_000,
      maxMs: 1_200_000,
      budgetsReached: ["sources"],
    },
  ],
  research_start: [
    {
      brief: {
        goal: "Compare heat pumps",
        scope: "",
        sections: [
          { id: "s1", title: "Costs", questions: ["What do they cost?"] },
          { id: "s2", title: "Savings", questions: ["What do they save?"] },
          { id: "s3", title: "Limits", questions: ["Where do they fail?"] },
        ],
      },
    },
  ],
};

/** Every sample as `[name, data]`. */
export const allSampleEvents = (): [RunEventName, unknown][] =>
  (Object.keys(sampleEvents) as RunEventName[]).flatMap((name) =>
    sampleEvents[name].map((data): [RunEventName, unknown] => [name, data]),
  );
