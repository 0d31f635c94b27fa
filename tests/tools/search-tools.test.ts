import iconv from "iconv-lite";
import { describe, expect, it } from "vitest";
import { files } from "@/lib/db/schema";
import { createBuiltinRegistry } from "@/lib/tools/builtin";
import { parsePageInfo } from "@/lib/tools/page-info";
import { openPdf } from "@/lib/tools/pdf/pdf-text";
import { KOREAN_CONSTITUTION } from "@/tests/support/encoded-pages";
import { DDG_CHALLENGE_PAGE, duckDuckGoPage } from "@/tests/support/fake-web";
import { followPages } from "@/tests/support/paging";
import { makeEndlessPdf } from "@/tests/support/pdf-bombs";
import { makeTextPdf } from "@/tests/support/pdf-fixtures";
import { testPdfLimits } from "@/tests/support/pdf-work";
import { setupToolEnv } from "@/tests/support/tool-env";

// The PDFs here are tiny: a time budget above the default keeps a loaded machine from stopping one
// (the budget's own tests set 1 s).
const env = setupToolEnv({ PDF_TIME_BUDGET_S: "60" });
const limit = 6000;

function serveResults(results: { title: string; path: string }[]) {
  env.web().routes.set("/html/", {
    body: duckDuckGoPage(
      results.map((r) => ({ title: r.title, href: `${env.web().url}${r.path}`, snippet: `About ${r.title}` })),
    ),
  });
}

describe("web_search", () => {
  it("posts the query as a form to DuckDuckGo and returns title, href and body", async () => {
    serveResults([{ title: "One", path: "/one" }]);
    const result = JSON.parse(await env.run("web_search", { query: "local llm" }));
    expect(result).toEqual([{ title: "One", href: `${env.web().url}/one`, body: "About One" }]);
    expect(env.web().requests[0]).toMatchObject({ method: "POST", path: "/html/", body: "q=local+llm" });
  });

  it("caps results at max_results, else SEARCH_MAX_RESULTS", async () => {
    serveResults(Array.from({ length: 9 }, (_, i) => ({ title: `R${i}`, path: `/r${i}` })));
    expect(JSON.parse(await env.run("web_search", { query: "q", max_results: 2 }))).toHaveLength(2);
    expect(JSON.parse(await env.run("web_search", { query: "q" }))).toHaveLength(5);
  });

  it("returns [] for an empty query without searching", async () => {
    expect(await env.run("web_search", { query: "  " })).toBe("[]");
    expect(env.web().requests).toEqual([]);
  });

  it.each([
    ["a 202 rate limit", { status: 202, body: duckDuckGoPage([]) }, "HTTP 202"],
    ["a 429", { status: 429, body: "slow down" }, "HTTP 429"],
    ["a 403", { status: 403, body: "forbidden" }, "HTTP 403"],
    ["the challenge page", { body: DDG_CHALLENGE_PAGE }, "challenge page"],
  ])("reports %s as a refused search naming the fix, never as no results", async (_label, route, reason) => {
    env.web().routes.set("/html/", route);
    const outcome = await env.outcome("web_search", { query: "q" });
    expect(outcome).toEqual({
      ok: false,
      error: {
        kind: "search_unavailable",
        message: expect.stringContaining(`DuckDuckGo refused the search (${reason})`),
      },
    });
    const message = outcome.ok ? "" : outcome.error.message;
    expect(message).toContain("Wait a minute before searching again");
    expect(message).toContain("SearXNG");
  });

  it("reports a search that failed otherwise (HTTP 500, SearXNG unset or down) with its reason", async () => {
    env.web().routes.set("/html/", { status: 500, body: "oops" });
    expect(await env.run("web_search", { query: "q" })).toBe("The search failed: HTTP 500.");
    const searxng = (url: string | undefined) =>
      createBuiltinRegistry({
        ...env.services,
        limits: { ...env.services.limits, SEARCH_BACKEND: "searxng", SEARXNG_URL: url },
      });
    expect(await env.run("web_search", { query: "q" }, {}, searxng(undefined))).toBe(
      "The search backend is SearXNG, but SEARXNG_URL is not set.",
    );
    const down = await env.run("web_search", { query: "q" }, {}, searxng(`${env.web().url}/missing/`));
    expect(down).toMatch(/^SearXNG did not answer the search \(HTTP 404\)/);
  });

  it("uses SearXNG's JSON API when configured", async () => {
    env.web().routes.set("/searx/search", {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        results: [{ title: "S", url: "https://s.example/", content: "snip" }, { title: "no url" }],
      }),
    });
    const registry = createBuiltinRegistry({
      ...env.services,
      limits: { ...env.services.limits, SEARCH_BACKEND: "searxng" },
    });
    const result = await env.run("web_search", { query: "x y" }, {}, registry);
    expect(JSON.parse(result)).toEqual([{ title: "S", href: "https://s.example/", body: "snip" }]);
    expect(env.web().requests[0]?.path).toBe("/searx/search?q=x+y&format=json");
  });
});

describe("search_and_fetch", () => {
  it("searches restricted to the file type and returns one file page in the seed's format", async () => {
    serveResults([{ title: "Data", path: "/data.csv" }]);
    env.web().routes.set("/data.csv", { headers: { "content-type": "text/csv" }, body: "a,b\n1,2\n" });
    const result = await env.run("search_and_fetch", { query: "numbers", file_type: "csv" });
    expect(env.web().requests[0]?.body).toBe("q=numbers+filetype%3Acsv");
    const [row] = await env.db().select().from(files);
    expect(result).toBe(
      `=== Candidate 1 ===\nURL: ${env.web().url}/data.csv\nTitle: Data\nFormat: text/csv\nSize: 8 bytes\nCharacters: 8\nSaved as: attachment:${row?.id}\n---\na,b\n1,2\n`,
    );
  });

  it("reports a refused search as the search's error, not as no files found", async () => {
    env.web().routes.set("/html/", { body: DDG_CHALLENGE_PAGE });
    const outcome = await env.outcome("search_and_fetch", { query: "q", file_type: "pdf" });
    expect(outcome).toMatchObject({ ok: false, error: { kind: "search_unavailable" } });
  });

  it("keeps only candidates whose URL path ends with the file type, from twice as many results", async () => {
    serveResults([
      { title: "HTML about PDFs", path: "/guide.html" },
      { title: "Directory", path: "/pdfs/" },
      { title: "Lookalike", path: "/report.pdf.html" },
      { title: "Query", path: "/get.pdf?download=1" },
      { title: "Fragment", path: "/b.PDF#page=2" },
      { title: "Third", path: "/c.pdf" },
      { title: "Beyond twice", path: "/d.pdf" },
    ]);
    const result = await env.run("search_and_fetch", { query: "q", file_type: "pdf", max_results: 3 });
    expect(result).toContain(`URL: ${env.web().url}/get.pdf?download=1`);
    const token = parsePageInfo(result).pageInfo?.nextToken ?? "";
    const matched = JSON.parse(Buffer.from(token, "base64url").toString("utf8")).matched;
    expect(matched.map((m: { title: string }) => m.title)).toEqual(["Query", "Fragment", "Third"]);
  });

  it("speaks Japanese labels in a Japanese conversation", async () => {
    serveResults([{ title: "データ", path: "/d.txt" }]);
    env.web().routes.set("/d.txt", { headers: { "content-type": "text/plain; charset=utf-8" }, body: "本文" });
    const result = await env.run("search_and_fetch", { query: "q", file_type: "txt" }, { language: "ja" });
    expect(result).toContain("=== 候補 1 ===");
    expect(result).toContain("タイトル: データ");
    expect(result).toContain("形式: text/plain");
  });

  it("reads a file that declares no charset by detecting it (EUC-KR Korean)", async () => {
    serveResults([{ title: "헌법", path: "/constitution.txt" }]);
    env.web().routes.set("/constitution.txt", {
      headers: { "content-type": "text/plain" },
      body: iconv.encode(KOREAN_CONSTITUTION, "cp949"),
    });
    const result = await env.run("search_and_fetch", { query: "constitution", file_type: "txt" });
    expect(result.endsWith(`---\n${KOREAN_CONSTITUTION}`)).toBe(true);
  });

  it("stores every fetched file in the conversation, readable later as attachment:<id>", async () => {
    const pdf = makeTextPdf([["Report page one"], ["Report page two"]]);
    serveResults([{ title: "Report", path: "/report.pdf" }]);
    env.web().routes.set("/report.pdf", { headers: { "content-type": "application/pdf" }, body: Buffer.from(pdf) });
    const result = await env.run("search_and_fetch", { query: "report", file_type: "pdf" });
    expect(result).toContain("Pages: 2");
    expect(result).toContain("Report page one\n\nReport page two");
    const stored = await env.db().select().from(files);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      conversationId: env.conversationId,
      origin: "fetch",
      mime: "application/pdf",
      filename: "report.pdf",
    });
    expect(await env.run("pdf_to_text", { url_or_path: `attachment:${stored[0]?.id}` })).toBe(
      "Report page one\n\nReport page two",
    );
    // Another conversation cannot read it.
    expect(
      await env.run(
        "pdf_to_text",
        { url_or_path: `attachment:${stored[0]?.id}` },
        { conversationId: env.otherConversationId },
      ),
    ).toContain("Attachment not found");
  });

  it("a PDF's file header gives its page count and its character count", async () => {
    serveResults([{ title: "Report", path: "/report.pdf" }]);
    const pdf = makeTextPdf([["Report page one"], ["Report page two"]]);
    env.web().routes.set("/report.pdf", { headers: { "content-type": "application/pdf" }, body: Buffer.from(pdf) });
    const result = await env.run("search_and_fetch", { query: "report", file_type: "pdf" });
    expect(result).toContain(`Pages: 2\nCharacters: ${"Report page one\n\nReport page two".length}\n`);
    // Counting more pages than one call may read is left to the reading.
    const registry = createBuiltinRegistry({ ...env.services, limits: { ...env.services.limits, MAX_PDF_PAGES: 1 } });
    const long = await env.run("search_and_fetch", { query: "report", file_type: "pdf" }, { language: "ja" }, registry);
    expect(long).toContain("ページ数: 2\n文字数: 未計数（1 ページを超えるため");
  });

  it("names blank (scanned) PDF pages above the body and reads on to the text after them, losslessly", async () => {
    serveResults([{ title: "Scan", path: "/scan.pdf" }]);
    const pdf = makeTextPdf([[], [], [], ["Typed page after the scans."]]);
    env.web().routes.set("/scan.pdf", { headers: { "content-type": "application/pdf" }, body: Buffer.from(pdf) });
    const registry = createBuiltinRegistry({ ...env.services, limits: { ...env.services.limits, MAX_PDF_PAGES: 2 } });
    const pages = await followPages(
      (args) => env.outcome("search_and_fetch", args, {}, registry),
      { query: "scan", file_type: "pdf" },
      { limit },
    );
    expect(pages[0]?.body).toContain("[No text on pages 1–2 (scanned pages?); the text may go on after them.]\n---\n");
    const bodies = pages.map((page) => page.body.split("\n---\n").slice(1).join("\n---\n")).join("");
    const doc = await openPdf(pdf, testPdfLimits());
    let text = "";
    for (let i = 0; i < doc.pageCount; i++) text += await doc.pageText(i);
    await doc.close();
    expect(bodies).toBe(text);
    expect(bodies).toContain("Typed page after the scans.");
  });

  it("reports a PDF stopped by a limit like a failed fetch, and the token moves on to the next candidate", async () => {
    serveResults([
      { title: "Bomb", path: "/endless.pdf" },
      { title: "Fine", path: "/fine.pdf" },
    ]);
    const pdf = { "content-type": "application/pdf" };
    env.web().routes.set("/endless.pdf", { headers: pdf, body: Buffer.from(makeEndlessPdf()) });
    env.web().routes.set("/fine.pdf", { headers: pdf, body: Buffer.from(makeTextPdf([["Readable report"]])) });
    const registry = createBuiltinRegistry({
      ...env.services,
      limits: { ...env.services.limits, PDF_TIME_BUDGET_S: 1 },
    });
    const first = await env.run("search_and_fetch", { query: "report", file_type: "pdf" }, {}, registry);
    expect(first).toContain(
      "Could not read this candidate: Reading this PDF was stopped: it needed more than 1 s of processing time;",
    );
    // Read on with the default budget: a 1 s budget could run out on a busy machine just starting a worker.
    const second = parsePageInfo(
      await env.run("search_and_fetch", { continue_from: parsePageInfo(first).pageInfo?.nextToken }),
    );
    expect(second.body).toContain("=== Candidate 2 ===");
    expect(second.body).toContain("Readable report");
  });

  it("pages losslessly across files, reading each later page from the stored copy", async () => {
    const pdf = makeTextPdf(
      Array.from({ length: 30 }, (_, p) => [`PDF page ${p + 1} says something useful.`, "Another line here."]),
    );
    const text = Array.from({ length: 200 }, (_, i) => `row ${i},value ${i * 2}`).join("\n");
    serveResults([
      { title: "PDF", path: "/scan.txt" }, // a .txt URL that serves a PDF
      { title: "Missing", path: "/gone.txt" },
      { title: "Text", path: "/b.txt" },
    ]);
    env.web().routes.set("/scan.txt", { headers: { "content-type": "application/pdf" }, body: Buffer.from(pdf) });
    env.web().routes.set("/b.txt", { headers: { "content-type": "text/plain" }, body: text });
    const pages = await followPages(
      (args) => env.outcome("search_and_fetch", args),
      { query: "stuff", file_type: "txt", max_chars: 900 },
      { limit },
    );
    const byFile = new Map<string, string>();
    for (const page of pages) {
      const [header, ...rest] = page.body.split("\n---\n");
      const idx = /=== Candidate (\d+) ===/.exec(header ?? "")?.[1] ?? "?";
      byFile.set(idx, (byFile.get(idx) ?? "") + rest.join("\n---\n"));
    }
    const pdfDoc = await openPdf(pdf, testPdfLimits());
    let pdfText = "";
    for (let i = 0; i < pdfDoc.pageCount; i++) pdfText += await pdfDoc.pageText(i);
    expect(byFile.get("1")).toBe(pdfText);
    expect(byFile.get("2")).toContain("Could not read this candidate: Failed to fetch");
    expect(byFile.get("3")).toBe(text);
    // Each file was fetched from the web once; its later pages came from the database.
    const fetches = env
      .web()
      .requests.filter((r) => r.path !== "/html/")
      .map((r) => r.path);
    expect(fetches).toEqual(["/scan.txt", "/gone.txt", "/b.txt"]);
    expect(env.web().requests.filter((r) => r.path === "/html/")).toHaveLength(1);
  });

  it("a failed fetch still hands out a token to the next candidate", async () => {
    serveResults([
      { title: "Broken", path: "/nope.txt" },
      { title: "Fine", path: "/ok.txt" },
    ]);
    env.web().routes.set("/ok.txt", { headers: { "content-type": "text/plain" }, body: "fine" });
    const first = parsePageInfo(await env.run("search_and_fetch", { query: "q", file_type: "txt" }));
    expect(first.body).toContain("HTTP 404");
    expect(first.pageInfo?.nextToken).toBeTruthy();
    expect(await env.run("search_and_fetch", { continue_from: first.pageInfo?.nextToken })).toContain("---\nfine");
  });

  it.each([
    [{ query: "", file_type: "pdf" }, "search_and_fetch needs a non-empty query."],
    [
      { query: "q", file_type: "exe" },
      'Unsupported file_type "exe". Use one of: pdf, csv, txt, md, json, html, htm, xml, py, js, ts.',
    ],
    [{ query: "q" }, 'Unsupported file_type "". Use one of: pdf, csv, txt, md, json, html, htm, xml, py, js, ts.'],
  ])("rejects %j with a clear message", async (args, message) => {
    expect(await env.run("search_and_fetch", args)).toBe(message);
  });

  it("says when nothing was found", async () => {
    serveResults([]);
    expect(await env.run("search_and_fetch", { query: "zzz", file_type: "md" })).toBe('No md files found for "zzz".');
  });

  it("a tampered token is refused without fetching", async () => {
    serveResults([{ title: "A", path: "/a.txt" }]);
    env.web().routes.set("/a.txt", { headers: { "content-type": "text/plain" }, body: "x".repeat(20_000) });
    const first = parsePageInfo(await env.run("search_and_fetch", { query: "q", file_type: "txt" }));
    const payload = JSON.parse(Buffer.from(first.pageInfo?.nextToken ?? "", "base64url").toString("utf8"));
    payload.matched[0].href = "http://10.0.0.1/secret";
    const forged = Buffer.from(JSON.stringify(payload)).toString("base64url");
    const before = env.web().requests.length;
    expect(await env.run("search_and_fetch", { continue_from: forged })).toContain(
      "Invalid continuation token: signature mismatch",
    );
    expect(env.web().requests.length).toBe(before);
  });

  it("session_id is not a parameter the model can set", () => {
    const spec = env.registry.specs().find((s) => s.name === "search_and_fetch");
    expect(Object.keys((spec?.parameters.properties as object) ?? {})).not.toContain("session_id");
  });
});
