import { describe, expect, it } from "vitest";
import { GET as exportOne } from "@/app/api/conversations/[id]/export/route";
import { GET as getOne } from "@/app/api/conversations/[id]/route";
import { POST as importFile } from "@/app/api/conversations/import/route";
import { GET as getSource } from "@/app/api/runs/[runId]/sources/[n]/route";
import { getDb } from "@/lib/db/client";
import { citationReports, conversations, runSourceParts, runSources } from "@/lib/db/schema";
import type { ConversationExport } from "@/lib/export/format";
import type { CitationReport } from "@/lib/protocol/citations";
import type { StoredSource } from "@/lib/protocol/sources";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { jsonRequest, params, setupAppEnv } from "@/tests/support/app-env";
import { READ_AT, seedConversationWithSources } from "@/tests/support/seed-sources";

const fake = setupFakeOllama();
setupAppEnv(fake);

interface Report {
  imported: { title: string; id: string }[];
  skipped: { title?: string; code: string; reason: string; details?: Record<string, unknown> }[];
}

async function exportJson(id: string): Promise<ConversationExport> {
  const response = await exportOne(
    jsonRequest(`/api/conversations/${id}/export?format=json&files=1`, "GET"),
    params({ id }),
  );
  expect(response.status).toBe(200);
  return (await response.json()) as ConversationExport;
}

async function importReport(document: unknown): Promise<Report> {
  const response = await importFile(
    new Request("http://127.0.0.1/api/conversations/import", { method: "POST", body: JSON.stringify(document) }),
  );
  expect(response.status).toBe(200);
  return (await response.json()) as Report;
}

function withoutIds(document: ConversationExport): unknown {
  const ids = [
    document.conversation.id,
    ...document.messages.map((message) => message.id),
    ...document.runs.map((run) => run.id),
    ...document.files.map((file) => file.id),
    ...document.interrupts.map((held) => held.id),
  ];
  let text = JSON.stringify({ ...document, exportedAt: 0 });
  ids.forEach((id, index) => {
    text = text.replaceAll(id, `#${index}`);
  });
  return JSON.parse(text);
}

const counts = async () => {
  const db = await getDb();
  return {
    conversations: (await db.select().from(conversations)).length,
    sources: (await db.select().from(runSources)).length,
    parts: (await db.select().from(runSourceParts)).length,
    reports: (await db.select().from(citationReports)).length,
  };
};

type Detail = { messages: { id: string; runId: string | null; content: string; citations?: CitationReport }[] };

describe("the conversation export carries the sources and verdicts", () => {
  it("exports each run's sources with every part's text and pages, and each answer's citation report", async () => {
    const { conversationId, runId, answerId, pdfId, report } = await seedConversationWithSources(await getDb());
    const document = await exportJson(conversationId);
    expect(document.version).toBe(3);
    const run = document.runs.find((candidate) => candidate.id === runId);
    expect(run?.sources).toEqual([
      {
        n: 1,
        url: `attachment:${pdfId}`,
        title: "report.pdf",
        retrievedAt: READ_AT[0],
        contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        chars: "The report names two findings.\n\nSecond, costs fell by 12%.".length,
        parts: [
          { text: "The report names two findings.", pageFirst: 1, pageLast: 1, pageTotal: 2 },
          { text: "Second, costs fell by 12%.", pageFirst: 2, pageLast: 2, pageTotal: 2 },
        ],
      },
      expect.objectContaining({
        n: 2,
        url: "https://example.org/a_(b)",
        parts: [
          {
            text: "東京は日本の首都です。報告書は二つの点を述べている。",
            pageFirst: null,
            pageLast: null,
            pageTotal: null,
          },
        ],
      }),
    ]);
    expect(document.citationReports).toEqual([{ messageId: answerId, report }]);
  });

  it("round trip: an import keeps the sources, their parts and the verdicts, so a citation opens with its verdict", async () => {
    const { conversationId, runId, answerId } = await seedConversationWithSources(await getDb());
    const original = await exportJson(conversationId);
    const result = await importReport(original);
    expect(result.skipped).toEqual([]);
    const importedId = result.imported[0]?.id ?? "";

    const copy = await exportJson(importedId);
    const unsummarised = {
      ...original,
      conversation: { ...original.conversation, summary: null, summaryThrough: null },
    };
    expect(withoutIds(copy)).toEqual(withoutIds(unsummarised));

    const detail = (await (await getOne(jsonRequest("", "GET"), params({ id: importedId }))).json()) as Detail;
    const answerIndex = original.messages.findIndex((message) => message.id === answerId);
    const answer = detail.messages.find((message) => message.id === copy.messages[answerIndex]?.id);
    expect(answer?.citations?.checks.map((check) => [check.n, check.verdict])).toEqual([
      [1, "supported"],
      [2, "not_found"],
    ]);
    const newRunId = answer?.runId ?? "";
    expect(newRunId).not.toBe(runId);
    const opened = await getSource(jsonRequest("", "GET"), params({ runId: newRunId, n: "1" }));
    expect(opened.status).toBe(200);
    const source = (await opened.json()) as StoredSource;
    // The attached file it names is the imported copy's.
    const pdfIndex = original.files.findIndex((file) => file.filename === "report.pdf");
    expect(source.url).toBe(`attachment:${copy.files[pdfIndex]?.id}`);
    expect(source.text).toBe("The report names two findings.\n\nSecond, costs fell by 12%.");
    expect(source.parts).toEqual([
      { start: 0, end: 30, pages: { first: 1, last: 1, total: 2 } },
      { start: 32, end: 58, pages: { first: 2, last: 2, total: 2 } },
    ]);
  });

  it("still imports a version-1 export, its sources rebuilt from its steps as the live store makes them", async () => {
    const { conversationId, runId } = await seedConversationWithSources(await getDb());
    const {
      citationReports: _reports,
      project: _project,
      projectFiles: _projectFiles,
      ...current
    } = await exportJson(conversationId);
    const older = { ...current, version: 1, runs: current.runs.map(({ sources: _sources, ...run }) => run) };
    const before = await counts();
    const result = await importReport(older);
    expect(result.skipped).toEqual([]);
    expect(result.imported).toHaveLength(1);
    // The seeded run's two tool_result steps read two sources, one part each; no report came with it.
    expect(await counts()).toEqual({
      ...before,
      conversations: before.conversations + 1,
      sources: before.sources + 2,
      parts: before.parts + 2,
    });
    const copy = await exportJson(result.imported[0]?.id ?? "");
    const runIndex = current.runs.findIndex((run) => run.id === runId);
    const newPdfId = copy.files[current.files.findIndex((file) => file.filename === "report.pdf")]?.id;
    expect(copy.runs[runIndex]?.sources).toEqual([
      expect.objectContaining({
        n: 1,
        url: `attachment:${newPdfId}`,
        retrievedAt: 2,
        parts: [{ text: `Text of attachment:${newPdfId}`, pageFirst: null, pageLast: null, pageTotal: null }],
      }),
      expect.objectContaining({
        n: 2,
        url: "https://example.org/a_(b)",
        chars: "A page".length,
        parts: [{ text: "A page", pageFirst: null, pageLast: null, pageTotal: null }],
      }),
    ]);
    expect(copy.citationReports).toEqual([]);
  });

  it("skips an export of a version this server does not know, naming the ones it reads", async () => {
    const { conversationId } = await seedConversationWithSources(await getDb());
    const result = await importReport({ ...(await exportJson(conversationId)), version: 4 });
    expect(result.skipped).toEqual([
      expect.objectContaining({
        code: "bad_request:import_version",
        reason: "export version 4 is not one this server reads (versions 1, 2, 3).",
        details: { version: "4", supported: "1, 2, 3" },
      }),
    ]);
  });

  const sourced = (document: ConversationExport) => {
    const run = document.runs.find((candidate) => candidate.sources.length > 0);
    if (!run) throw new Error("no run with sources");
    return run;
  };

  it.each([
    [
      "a source without its text",
      (d: ConversationExport) => Object.assign(sourced(d).sources[0] ?? {}, { parts: [] }),
      "source 1 of run",
      "has no text (its parts are missing)",
    ],
    [
      "a part with empty text",
      (d: ConversationExport) => Object.assign(sourced(d).sources[1]?.parts[0] ?? {}, { text: "" }),
      "runs.0.sources.1.parts.0.text",
      "cannot be empty",
    ],
    [
      "a source whose text was changed",
      (d: ConversationExport) =>
        Object.assign(sourced(d).sources[0]?.parts[1] ?? {}, { text: "Second, costs fell by 21%." }),
      "source 1 of run",
      "does not match its content hash",
    ],
    [
      "a source numbered twice",
      (d: ConversationExport) => sourced(d).sources.push(structuredClone(sourced(d).sources[0] as never)),
      "has two sources numbered 1",
      "",
    ],
    [
      "a source that is neither a page nor a file",
      (d: ConversationExport) => Object.assign(sourced(d).sources[1] ?? {}, { url: "javascript:alert(1)" }),
      "runs.0.sources.1.url",
      "must be an http(s) URL or attachment:<id>",
    ],
    [
      "a citation report naming a message not in it",
      (d: ConversationExport) => Object.assign(d.citationReports[0] ?? {}, { messageId: "elsewhere" }),
      "a citation report names message elsewhere",
      "which is not in it",
    ],
    [
      "a citation report of a question",
      (d: ConversationExport) =>
        Object.assign(d.citationReports[0] ?? {}, { messageId: d.messages.find((m) => m.role === "user")?.id }),
      "a citation report is of message",
      "which is not an answer",
    ],
    [
      "a citation report without its checks",
      (d: ConversationExport) => Object.assign(d.citationReports[0]?.report ?? {}, { checks: undefined }),
      "citationReports.0.report.checks",
      "",
    ],
  ])("skips a conversation with %s with a clear reason, storing nothing of it", async (_what, damage, where, why) => {
    const { conversationId } = await seedConversationWithSources(await getDb());
    const document = await exportJson(conversationId);
    damage(document);
    const before = await counts();
    const result = await importReport(document);
    expect(result.imported).toEqual([]);
    expect(result.skipped).toEqual([
      expect.objectContaining({
        code: "bad_request:import_invalid",
        reason: expect.stringMatching(new RegExp(`${escapeRegExp(where)}.*${escapeRegExp(why)}`)),
      }),
    ]);
    expect(await counts()).toEqual(before);
  });

  it("the Markdown export lists each answer's references: title, link, date read and the verdicts", async () => {
    const { conversationId } = await seedConversationWithSources(await getDb());
    const response = await exportOne(
      jsonRequest(`/api/conversations/${conversationId}/export?format=md`, "GET"),
      params({ id: conversationId }),
    );
    const markdown = await response.text();
    expect(markdown).toContain(
      [
        "References:",
        "- \\[1\\] report.pdf (attached file `report.pdf`), accessed 2026-03-04 — citations: 1 supported",
        "- \\[2\\] [Example \\[x\\]](https://example.org/a_%28b%29), accessed 2026-03-05 — citations: 1 not found in the source",
      ].join("\n"),
    );
  });
});

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
