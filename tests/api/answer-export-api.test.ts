import { describe, expect, it } from "vitest";
import { GET as exportAnswer } from "@/app/api/conversations/[id]/messages/[messageId]/export/route";
import { saveCitationReport } from "@/lib/db/citation-reports";
import type { Db } from "@/lib/db/client";
import { getDb } from "@/lib/db/client";
import { createConversation, type OwnerId } from "@/lib/db/conversations";
import { insertMessage } from "@/lib/db/messages";
import { appendSourcePart } from "@/lib/db/run-sources";
import { createRun, finishRun } from "@/lib/db/runs";
import { findUserByName } from "@/lib/db/users";
import { getConfig } from "@/lib/env-config";
import { docxLimits, docxToHtml } from "@/lib/files/docx-html";
import { MAX_ENTRIES, readEntry, zipEntries } from "@/lib/files/zip-entries";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { setupAccounts } from "@/tests/support/accounts";
import { expectApiError, jsonRequest, params, setupAppEnv } from "@/tests/support/app-env";

const fake = setupFakeOllama();
setupAppEnv(fake);

/** Read 2026-03-04 and 2026-03-05 (UTC). */
const READ_AT = [Date.UTC(2026, 2, 4, 10), Date.UTC(2026, 2, 5, 10)] as const;

const ANSWER = [
  "# 調査の結果",
  "",
  "東京は日本の首都です[2]。The report names **two** findings [1].",
  "",
  "## Details",
  "",
  "1. First point",
  "2. Second point [1, 2]",
  "",
  "- a bullet",
  "",
  "| Item | 値 |",
  "|---|---:|",
  "| costs | 12% |",
  "",
  "```ts",
  "const answer = 42;",
  "```",
].join("\n");

/**
 * A conversation whose answer cites sources 1 and 2 of its run, which also read source 3 (never
 * cited), its citations checked: 1 supported, 2 partly.
 */
async function seedAnswer(
  db: Db,
  ownerId: OwnerId = null,
  { mode = "native", answer = ANSWER }: { mode?: "native" | "research"; answer?: string } = {},
) {
  const conversation = await createConversation(db, { title: "調査 Report", model: "qwen3:8b", ownerId });
  const question = await insertMessage(db, {
    conversationId: conversation.id,
    role: "user",
    content: "東京について調べて",
  });
  const run = await createRun(db, {
    conversationId: conversation.id,
    questionId: question.id,
    mode,
    model: "qwen3:8b",
  });
  const read = (n: number, url: string, title: string, text: string, at: number) =>
    appendSourcePart(db, { runId: run.id, source: { n, url, title }, text, at });
  await read(1, "https://example.org/report", "The report", "The report names two findings.", READ_AT[0]);
  await read(2, "https://example.jp/tokyo", "東京の案内", "東京は日本の首都です。", READ_AT[1]);
  await read(3, "https://example.org/unused", "Never cited", "Nothing cited from here.", READ_AT[1]);
  const answerId = crypto.randomUUID();
  await finishRun(db, {
    runId: run.id,
    status: "complete",
    iterations: 1,
    inputTokens: 1,
    outputTokens: 1,
    answer,
    messageId: answerId,
  });
  const check = (n: number, verdict: "supported" | "partly") => ({
    sentence: "A claim.",
    start: 0,
    end: 8,
    n,
    verdict,
    passage: null,
    missing: [],
  });
  await saveCitationReport(db, {
    messageId: answerId,
    report: { checkedAt: READ_AT[1], verifierModel: "qwen3:8b", checks: [check(1, "supported"), check(2, "partly")] },
  });
  return { conversationId: conversation.id, questionId: question.id, answerId };
}

const answerUrl = (id: string, messageId: string, query: string) =>
  `/api/conversations/${id}/messages/${messageId}/export${query}`;

const requestExport = (id: string, messageId: string, query = "") =>
  exportAnswer(jsonRequest(answerUrl(id, messageId, query), "GET"), params({ id, messageId }));

async function documentXml(docx: Buffer): Promise<string> {
  const entries = zipEntries(docx, MAX_ENTRIES);
  const entry = entries?.find((candidate) => candidate.name === "word/document.xml");
  if (!entry) throw new Error("no word/document.xml in the DOCX");
  return (await readEntry(docx, entry, 50 * 1024 * 1024))?.toString("utf8") ?? "";
}

/** The text of each `<w:p>` paragraph of the document, its runs joined. */
const paragraphs = (xml: string) =>
  [...xml.matchAll(/<w:p[ >][\s\S]*?<\/w:p>/g)].map((match) =>
    [...match[0].matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)].map((text) => text[1]).join(""),
  );

describe("one answer as a document", () => {
  it("Markdown: the answer as written, then its references — only the cited ones, in order, with date and verdicts", async () => {
    const { conversationId, answerId } = await seedAnswer(await getDb());
    const response = await requestExport(conversationId, answerId, "?format=md");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(response.headers.get("content-disposition")).toContain(
      `filename*=UTF-8''${encodeURIComponent("調査 Report.md")}`,
    );
    const markdown = await response.text();
    expect(markdown).toMatch(/^# 調査 Report\n\n> 東京について調べて\n/);
    expect(markdown).toContain("1 of 2 citations supported · 1 partly supported");
    expect(markdown).toContain(ANSWER);
    expect(
      markdown
        .trimEnd()
        .endsWith(
          [
            "References:",
            "- \\[1\\] [The report](https://example.org/report), accessed 2026-03-04 — citations: 1 supported",
            "- \\[2\\] [東京の案内](https://example.jp/tokyo), accessed 2026-03-05 — citations: 1 partly supported",
          ].join("\n"),
        ),
    ).toBe(true);
    expect(markdown).not.toContain("Never cited");
  });

  it("Word: a DOCX whose document holds the headings, lists, table, code, the Japanese text, superscript markers and the references", async () => {
    const { conversationId, answerId } = await seedAnswer(await getDb());
    const response = await requestExport(conversationId, answerId, "?format=docx");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    );
    expect(response.headers.get("content-disposition")).toContain(
      `filename*=UTF-8''${encodeURIComponent("調査 Report.docx")}`,
    );
    const docx = Buffer.from(await response.arrayBuffer());
    const xml = await documentXml(docx);
    const texts = paragraphs(xml);
    expect(texts).toContain("調査 Report");
    expect(texts).toContain("東京について調べて");
    // The answer's own headings as Word headings.
    expect(xml).toMatch(/<w:pStyle w:val="Heading1"\/>[\s\S]*?調査の結果/);
    expect(xml).toMatch(/<w:pStyle w:val="Heading2"\/>[\s\S]*?Details/);
    expect(texts).toContain("東京は日本の首都です[2]。The report names two findings [1].");
    // Each marker a superscript run of its own; "two" bold.
    expect(xml).toMatch(/<w:vertAlign w:val="superscript"\/><\/w:rPr><w:t xml:space="preserve">\[2\]<\/w:t>/);
    expect(xml).toMatch(/<w:vertAlign w:val="superscript"\/><\/w:rPr><w:t xml:space="preserve">\[1,2\]<\/w:t>/);
    expect(xml).toMatch(/<w:b\/>[\s\S]{0,80}<w:t xml:space="preserve">two<\/w:t>/);
    // Lists numbered and bulleted, a table, code in a monospaced font.
    expect(xml.match(/<w:numPr>/g)?.length).toBe(3);
    expect(xml).toContain("<w:tbl>");
    expect(texts).toEqual(expect.arrayContaining(["Item", "値", "costs", "12%"]));
    expect(xml).toMatch(/w:ascii="Consolas"[\s\S]*?const answer = 42;/);
    // The references at the end, the cited ones only.
    const references = texts.slice(texts.indexOf("References"));
    expect(references).toEqual([
      "References",
      "[1] The report, accessed 2026-03-04 — citations: 1 supported",
      "[2] 東京の案内, accessed 2026-03-05 — citations: 1 partly supported",
    ]);
    expect(xml).not.toContain("Never cited");
    // Another reader (mammoth, what reads uploaded DOCX here) makes the same structure of it.
    const html = await docxToHtml(docx, docxLimits(getConfig()));
    expect(html).toContain("<h1>調査の結果</h1>");
    expect(html).toContain("<h2>Details</h2>");
    expect(html).toContain("<ol><li>First point</li><li>Second point <sup>[1,2]</sup></li></ol>");
    expect(html).toContain("<ul><li>a bullet</li></ul>");
    expect(html).toMatch(/<table>[\s\S]*値[\s\S]*12%[\s\S]*<\/table>/);
    expect(html).toContain("東京は日本の首都です<sup>[2]</sup>。");
  });

  it.each([
    ["References", "[1] The report. https://example.org/report (accessed 2026-03-04)"],
    ["参考文献", "[1] The report. https://example.org/report(閲覧日 2026-03-04)"],
  ])(
    "a research report's own references (## %s) give way to the export's, with the verdicts",
    async (heading, line) => {
      const body = "## Summary\n\nThe report names two findings [1].";
      const answer = `${body}\n\n## ${heading}\n\n${line}\n`;
      const { conversationId, answerId } = await seedAnswer(await getDb(), null, { mode: "research", answer });
      const markdown = await (await requestExport(conversationId, answerId, "?format=md")).text();
      expect(markdown).toContain(body);
      expect(markdown).not.toContain(`## ${heading}`);
      expect(markdown).not.toContain(line);
      expect(markdown).toContain(
        "- \\[1\\] [The report](https://example.org/report), accessed 2026-03-04 — citations: 1 supported",
      );
      const xml = await documentXml(
        Buffer.from(await (await requestExport(conversationId, answerId, "?format=docx")).arrayBuffer()),
      );
      expect(paragraphs(xml).filter((text) => text === heading || text === "References")).toEqual(["References"]);
    },
  );

  it("an ordinary answer keeps a references section it wrote itself", async () => {
    const answer = "Two findings [1].\n\n## References\n\n[1] The report";
    const { conversationId, answerId } = await seedAnswer(await getDb(), null, { answer });
    const markdown = await (await requestExport(conversationId, answerId, "?format=md")).text();
    expect(markdown).toContain(answer);
  });

  it("refuses a format it does not write with 400", async () => {
    const { conversationId, answerId } = await seedAnswer(await getDb());
    await expectApiError(await requestExport(conversationId, answerId, "?format=pdf"), 400, "bad_request:validation");
  });

  it("refuses to export a question as an answer with 400", async () => {
    const { conversationId, questionId } = await seedAnswer(await getDb());
    await expectApiError(await requestExport(conversationId, questionId, "?format=md"), 400, "bad_request:validation");
  });

  it("a message of another conversation is a 404", async () => {
    const db = await getDb();
    const { answerId } = await seedAnswer(db);
    const other = await seedAnswer(db);
    await expectApiError(await requestExport(other.conversationId, answerId), 404, "not_found:message");
  });
});

describe("one answer as a document, with accounts", () => {
  const { admin, user } = setupAccounts();

  it("another user's answer is a 404, in either format", async () => {
    const db = await getDb();
    const owner = await findUserByName(db, "admin");
    const { conversationId, answerId } = await seedAnswer(db, owner?.id ?? null);
    const as = (client: typeof admin, format: string) =>
      exportAnswer(
        client.request(answerUrl(conversationId, answerId, `?format=${format}`), "GET"),
        params({ id: conversationId, messageId: answerId }),
      );
    expect((await as(admin, "docx")).status).toBe(200);
    for (const format of ["md", "docx"]) {
      await expectApiError(await as(user, format), 404, "not_found:conversation");
    }
  });
});
