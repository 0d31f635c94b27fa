import { createElement } from "react";
import { describe, expect, it } from "vitest";
import type { TimelineEntry, ToolResult } from "@/lib/client/run-view";
import type { NoticeAbout } from "@/lib/protocol/run-events";
import { renderHtml } from "@/tests/support/render-html";
import { RunTimeline } from "./run-timeline";

const result: ToolResult = {
  ok: true,
  errorKind: null,
  observation: "page text",
  paging: null,
  durationMs: 5,
  artifact: null,
  source: null,
  results: null,
};

const call = (key: string, iteration: number, stepId?: string): TimelineEntry => ({
  kind: "tool",
  key,
  callId: key,
  tool: "web_search",
  args: { query: key },
  iteration,
  startedAt: null,
  result,
  ...(stepId ? { stepId } : {}),
});

const thinking: TimelineEntry = {
  kind: "thinking",
  key: "t",
  text: "Let me think",
  live: false,
  durationMs: 1000,
  iteration: 0,
};

const render = (timeline: TimelineEntry[], runEnded: boolean) =>
  renderHtml(createElement(RunTimeline, { timeline, runEnded, elapsedMs: 12_000 }));

describe("the run's trail", () => {
  it("folds into one closed summary line once a run that used tools has ended", () => {
    const html = render([call("a", 0), call("b", 0), call("c", 1)], true);
    expect(html).toContain('data-testid="run-trail-toggle"');
    expect(html).toContain('aria-expanded="false"');
    expect(html).toMatch(/data-testid="run-timeline" hidden=""/);
    // Two calls of one iteration are one round.
    expect(html).toContain("2 rounds · 0 sources · 12 s");
  });

  it("shows everything, with no summary, while the run is live", () => {
    const html = render([call("a", 0)], false);
    expect(html).not.toContain("run-trail-toggle");
    expect(html).not.toMatch(/data-testid="run-timeline" hidden/);
  });

  it("does not fold a run that used no tool: its thinking stays in view", () => {
    const html = render([thinking], true);
    expect(html).not.toContain("run-trail-toggle");
    expect(html).toContain("Let me think");
  });

  it("counts a DAG step's iteration as its own round, apart from another step's same iteration", () => {
    const html = render([call("a", 0, "s1"), call("b", 0, "s2")], true);
    expect(html).toContain("2 rounds");
  });
});

describe("notices in the trail", () => {
  const notice = (about: Extract<TimelineEntry, { kind: "notice" }>["about"], text = "run-language sentence") =>
    render([{ kind: "notice", key: "n", text, ...(about ? { about } : {}) }], true).replace(/<!-- -->/g, "");

  it("words the engine's notices from their data in the reader's language, as whole sentences (en + ja)", () => {
    const cut = { code: "cut", what: "tool_result", tool: "scrape_url", kept: 2659, total: 20010 } as const;
    expect(notice(cut)).toContain(
      "A result of scrape_url was too long for the model&#x27;s context and was cut: 2,659 of its 20,010 characters were kept.",
    );
    const ja = (about: Parameters<typeof notice>[0]) =>
      renderHtml(
        createElement(RunTimeline, {
          timeline: [{ kind: "notice", key: "n", text: "English sentence", ...(about ? { about } : {}) }],
          runEnded: true,
          elapsedMs: 0,
        }),
        "ja",
      ).replace(/<!-- -->/g, "");
    expect(ja(cut)).toContain(
      "scrape_url の結果がモデルのコンテキストに収まらないため切り詰めました（20,010 文字のうち 2,659 文字を残しました）。",
    );
    const budget = { code: "tool_budget", budget: "context", limit: 24000, chars: 18000 } as const;
    expect(notice(budget)).toContain(
      "Stopped reading: the 24,000-character tool budget is used (18,000 characters read).",
    );
    expect(ja(budget)).toContain("読み込みを止めました: ツール結果の上限 24,000 文字に達しました");
    expect(notice({ code: "tool_budget", budget: "rounds", rounds: 5 })).toContain(
      "Stopped calling tools: the budget of 5 tool rounds is used.",
    );
    expect(notice({ code: "cut", what: "question", kept: 1300, total: 1600 })).toContain("The question was too long");
    expect(ja({ code: "cut", what: "follow_up", kept: 1300, total: 1600 })).toContain("追加のメッセージ");
    expect(notice({ code: "cut", what: "research", kept: 5000, total: 9000 })).toContain(
      "The question with its research was too long for the context of the model writing the answer and was cut: 5,000 of its 9,000",
    );
    expect(ja({ code: "cut", what: "research", kept: 5000, total: 9000 })).toContain("質問と調査の記録");
    expect(notice({ code: "iteration_limit", iterations: 50 })).toContain("Stopped after 50 model calls");
    expect(ja({ code: "iteration_limit", iterations: 50 })).toContain("50 回のモデル呼び出しに達したため止めました");
    expect(ja({ code: "iteration_limit", iterations: 50 })).not.toContain("English sentence");
  });

  it("words a cut request, a research budget, a DAG fallback and an unreachable MCP server from their data (en + ja)", () => {
    const ja = (about: Parameters<typeof notice>[0]) =>
      renderHtml(
        createElement(RunTimeline, {
          timeline: [{ kind: "notice", key: "n", text: "English sentence", ...(about ? { about } : {}) }],
          runEnded: true,
          elapsedMs: 0,
        }),
        "ja",
      ).replace(/<!-- -->/g, "");
    const cut = (call: "planner" | "analyzer" | "tool_selection" | "brief") =>
      ({ code: "cut", what: "request", call, kept: 6120, total: 9800 }) as const;
    expect(notice(cut("planner"))).toContain(
      "The planner&#x27;s request was cut to fit the model&#x27;s context: 6,120 of 9,800 characters kept.",
    );
    expect(notice(cut("analyzer"))).toContain(
      "The analyzer&#x27;s request was cut to fit the model&#x27;s context: 6,120",
    );
    expect(notice(cut("tool_selection"))).toContain("The tool selection&#x27;s request was cut");
    expect(notice(cut("brief"))).toContain("The research brief&#x27;s request was cut");
    expect(ja(cut("planner"))).toContain(
      "計画の依頼をモデルのコンテキストに収めるため切り詰めました（9,800 文字のうち 6,120 文字を残しました）。",
    );
    expect(ja(cut("analyzer"))).toContain("評価の依頼を");
    expect(ja(cut("tool_selection"))).toContain("ツール選択の依頼を");
    expect(ja(cut("brief"))).toContain("調査の概要作成の依頼を");

    expect(notice({ code: "research_budget", budget: "sources", max: 1200 })).toContain(
      "The research has read 1,200 sources, its budget (RESEARCH_MAX_SOURCES)",
    );
    expect(notice({ code: "research_budget", budget: "time", minutes: 20 })).toContain(
      "The research&#x27;s 20 minutes (RESEARCH_MAX_MINUTES) are up",
    );
    expect(ja({ code: "research_budget", budget: "sources", max: 30 })).toContain(
      "調査は上限の 30 件の情報源を読みました",
    );
    expect(ja({ code: "research_budget", budget: "time", minutes: 20 })).toContain("調査の 20 分");

    const cycle: NoticeAbout = { code: "dag_fallback", problem: { kind: "cycle", steps: ["a", "b"] } };
    expect(notice(cycle)).toContain(
      "No usable plan could be made (steps a and b depend on each other in a cycle); answering directly instead.",
    );
    expect(notice({ code: "dag_fallback", problem: { kind: "empty" } })).toContain(
      "No usable plan could be made (it has no steps); answering directly instead.",
    );
    expect(notice({ code: "dag_fallback", problem: { kind: "single" } })).toContain("(it has a single step,");
    expect(ja(cycle)).toContain("使える計画を作れませんでした（ステップ a、b が循環して互いに依存しています）。");
    expect(ja({ code: "dag_fallback", problem: { kind: "single" } })).toContain("ステップが一つだけ");

    const mcp = { code: "mcp_unavailable", server: "files" } as const;
    expect(notice(mcp)).toContain("The MCP server files could not be reached: its tools are left out of this answer.");
    expect(ja(mcp)).toContain("MCP サーバー files に接続できなかったため");
    for (const about of [cut("brief"), cycle, mcp]) {
      expect(ja(about)).not.toContain("English sentence");
      expect(notice(about)).not.toContain("run-language sentence");
    }
  });

  it("words a research run's sources a quota left out of the library: how many were kept, which quota (en + ja)", () => {
    const ja = (about: Parameters<typeof notice>[0]) =>
      renderHtml(
        createElement(RunTimeline, {
          timeline: [{ kind: "notice", key: "n", text: "English sentence", ...(about ? { about } : {}) }],
          runEnded: true,
          elapsedMs: 0,
        }),
        "ja",
      ).replace(/<!-- -->/g, "");
    const files = { code: "sources_not_kept", kept: 1, notKept: 2, quota: "conversation_files" } as const;
    expect(notice(files)).toContain(
      "1 of the research&#x27;s web sources was kept in this chat&#x27;s files; the other 2 were not: the chat holds its most files (MAX_FILES_PER_CONVERSATION).",
    );
    const storage = { code: "sources_not_kept", kept: 12, notKept: 1, quota: "user_storage" } as const;
    expect(notice(storage)).toContain(
      "12 of the research&#x27;s web sources were kept in this chat&#x27;s files; the other one was not: your files take all the storage you have (MAX_STORAGE_MB_PER_USER).",
    );
    expect(notice({ ...files, quota: "project_files" })).toContain(
      "the project holds its most files (MAX_FILES_PER_PROJECT)",
    );
    expect(ja(files)).toContain(
      "調査で読んだウェブの情報源のうち 1 件をこのチャットのファイルに保存しました。残りの 2 件は、チャットのファイル数が上限（MAX_FILES_PER_CONVERSATION）に達したため保存していません。",
    );
    expect(ja(storage)).toContain("保存容量の上限（MAX_STORAGE_MB_PER_USER）");
    expect(ja(storage)).not.toContain("English sentence");
    expect(notice(storage)).not.toContain("run-language sentence");
  });

  it("a tool selection that fell back says so instead of a choice of every tool (en + ja)", () => {
    const entry = (fellBack: boolean): TimelineEntry => ({
      kind: "tool_selection",
      key: "s",
      selected: Array.from({ length: 20 }, (_, i) => `tool_${i}`),
      total: 20,
      ...(fellBack ? { fellBack: true as const } : {}),
    });
    const html = (fellBack: boolean, locale?: "en" | "ja") =>
      renderHtml(
        createElement(RunTimeline, { timeline: [entry(fellBack)], runEnded: false, elapsedMs: 0 }),
        locale,
      ).replace(/<!-- -->/g, "");
    expect(html(true)).toContain("Tool selection failed, so all 20 tools are offered");
    expect(html(true)).not.toContain("Using 20 of 20");
    expect(html(true, "ja")).toContain("ツールの選択に失敗したため、20 個すべてのツールを使用");
    expect(html(false)).toContain("Using 20 of 20 tools");
  });

  it("shows how a structured call went — its level and model calls — on the tool selection and the plan card (en + ja)", () => {
    const selection: TimelineEntry = {
      kind: "tool_selection",
      key: "s",
      selected: ["web_search"],
      total: 20,
      structured: { level: "json_mode", calls: 3 },
    };
    const plan: TimelineEntry = {
      kind: "plan",
      key: "plan:1",
      round: 1,
      steps: [],
      structured: { level: "plain", calls: 5 },
    };
    const html = (locale?: "en" | "ja") =>
      renderHtml(
        createElement(RunTimeline, { timeline: [selection, plan], runEnded: false, elapsedMs: 0 }),
        locale,
      ).replace(/<!-- -->/g, "");
    expect(html()).toContain("JSON mode, 3 model calls");
    expect(html()).toContain("plain text, 5 model calls");
    expect(html("ja")).toContain("JSON モード・モデル呼び出し 3 回");
  });

  it("shows the analyzer's verdict on a re-plan's card, above its steps (en + ja)", () => {
    const plan: TimelineEntry = {
      kind: "plan",
      key: "plan:2",
      round: 2,
      steps: [
        {
          id: "s1_2",
          task: "price of B",
          dependencies: [],
          tool_hint: null,
          model_hint: null,
          status: "pending",
          model: null,
          result: null,
          startedAt: null,
          durationMs: null,
        },
      ],
      verdict: { achieved: false, confidence: 0.4, reasoning: "B's price is missing" },
    };
    const html = (locale?: "en" | "ja") =>
      renderHtml(createElement(RunTimeline, { timeline: [plan], runEnded: false, elapsedMs: 0 }), locale).replace(
        /<!-- -->/g,
        "",
      );
    const en = html();
    expect(en).toContain("The results so far were judged not enough (confidence 40%): B&#x27;s price is missing");
    expect(en.indexOf("plan-verdict")).toBeLessThan(en.indexOf("price of B"));
    expect(html("ja")).toContain("ここまでの結果では不十分と判断されました（確信度 40%）");
  });

  it("shows other notices in the run's own sentence", () => {
    expect(notice(undefined, "No usable plan could be made (it has no steps); answering directly instead.")).toContain(
      "No usable plan could be made",
    );
  });
});
