import { describe, expect, it } from "vitest";
import { insertFile } from "@/lib/db/files";
import { duckDuckGoPage } from "@/tests/support/fake-web";
import { makeTextPdf } from "@/tests/support/pdf-fixtures";
import { setupToolEnv } from "@/tests/support/tool-env";

const env = setupToolEnv();

const html = (title: string, text: string) => ({
  headers: { "content-type": "text/html; charset=utf-8" },
  body: `<html><head><title>${title}</title></head><body><p>${text}</p></body></html>`,
});

describe("what a tool read, as data", () => {
  it("web_search gives its results as title, url and snippet besides the JSON the model reads", async () => {
    const url = `${env.web().url}/one`;
    env.web().routes.set("/html/", { body: duckDuckGoPage([{ title: "One", href: url, snippet: "About one" }]) });
    const outcome = await env.outcome("web_search", { query: "q" });
    expect(outcome).toMatchObject({ ok: true, results: [{ title: "One", url, snippet: "About one" }] });
  });

  it("scrape_url names the page it read by URL and title, on every page of it", async () => {
    env.web().routes.set("/page", html("The  Page", "word ".repeat(400)));
    const url = `${env.web().url}/page`;
    const first = await env.outcome("scrape_url", { url, max_chars: 500 });
    expect(first).toMatchObject({ ok: true, source: { url, title: "The Page" } });
    const next = first.ok ? first.paging?.nextToken : undefined;
    expect(await env.outcome("scrape_url", { continue_from: next })).toMatchObject({ source: { url } });
  });

  it("a page without a title is named by its URL; a failed fetch reads nothing", async () => {
    env.web().routes.set("/plain", { headers: { "content-type": "text/plain" }, body: "just text" });
    const url = `${env.web().url}/plain`;
    expect(await env.outcome("scrape_url", { url })).toMatchObject({ source: { url, title: url } });
    const missing = await env.outcome("scrape_url", { url: `${env.web().url}/missing` });
    expect(missing.ok).toBe(false);
    expect(missing).not.toHaveProperty("source");
  });

  it("pdf_to_text names a URL by itself and an attachment by attachment:<id> and its file name", async () => {
    const bytes = Buffer.from(makeTextPdf([["Hello PDF"]]));
    env.web().routes.set("/a.pdf", { headers: { "content-type": "application/pdf" }, body: bytes });
    const url = `${env.web().url}/a.pdf`;
    expect(await env.outcome("pdf_to_text", { url_or_path: url })).toMatchObject({ source: { url, title: url } });
    const file = await insertFile(env.db(), {
      conversationId: env.conversationId,
      origin: "upload",
      filename: "report.pdf",
      mime: "application/pdf",
      bytes,
      pageCount: null,
      sourceUrl: null,
    });
    expect(await env.outcome("pdf_to_text", { url_or_path: `attachment:${file.id}` })).toMatchObject({
      source: { url: `attachment:${file.id}`, title: "report.pdf" },
    });
  });

  it("search_and_fetch names the candidate it read by its URL and search title", async () => {
    const url = `${env.web().url}/data.csv`;
    env.web().routes.set("/html/", { body: duckDuckGoPage([{ title: "Data", href: url, snippet: "" }]) });
    env.web().routes.set("/data.csv", { headers: { "content-type": "text/csv" }, body: "a,b\n1,2\n" });
    const outcome = await env.outcome("search_and_fetch", { query: "numbers", file_type: "csv" });
    expect(outcome).toMatchObject({ ok: true, source: { url, title: "Data" } });
  });
});
