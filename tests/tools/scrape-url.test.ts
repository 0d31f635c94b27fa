import iconv from "iconv-lite";
import { describe, expect, it } from "vitest";
import { extractHtmlText } from "@/lib/tools/html-text";
import { parsePageInfo } from "@/lib/tools/page-info";
import { makeToken } from "@/lib/tools/pagination";
import { encodedPage, HEBREW_GENESIS, RASHOMON } from "@/tests/support/encoded-pages";
import { JAPANESE_TEXT, SHIFT_JIS_JAPANESE } from "@/tests/support/fake-web";
import { followPages } from "@/tests/support/paging";
import { setupToolEnv } from "@/tests/support/tool-env";

const env = setupToolEnv();

const article = (paragraphs: string[]) =>
  `<html><head><title>Long read</title></head><body><nav>menu</nav><article>${paragraphs
    .map((p) => `<p>${p}</p>`)
    .join("")}</article><footer>foot</footer></body></html>`;

const longParagraphs = Array.from(
  { length: 120 },
  (_, i) => `Paragraph ${i}: ${"lorem ipsum dolor sit amet ".repeat((i % 7) + 1)}— 日本語 ${i} 🎉 done.`,
);

describe("scrape_url", () => {
  it("returns the main text of a page, without noise, and no footer when it fits", async () => {
    env.web().routes.set("/page", { body: article(["Hello world.", "Second paragraph."]) });
    expect(await env.run("scrape_url", { url: `${env.web().url}/page` })).toBe("Hello world.\n\nSecond paragraph.");
  });

  it("decodes a Shift_JIS page from its Content-Type", async () => {
    env.web().routes.set("/sjis", {
      headers: { "content-type": "text/html; charset=Shift_JIS" },
      body: Buffer.concat([Buffer.from("<html><body><p>"), SHIFT_JIS_JAPANESE, Buffer.from("</p></body></html>")]),
    });
    expect(await env.run("scrape_url", { url: `${env.web().url}/sjis` })).toBe(JAPANESE_TEXT);
  });

  it("reads a page that declares no charset by detecting it (Shift_JIS, no U+FFFD)", async () => {
    env.web().routes.set("/undeclared", {
      headers: { "content-type": "text/html" },
      body: encodedPage("cp932", "羅生門", RASHOMON),
    });
    expect(await env.run("scrape_url", { url: `${env.web().url}/undeclared` })).toBe(`# 羅生門\n\n${RASHOMON}`);
  });

  it("reads undeclared plain text by detecting its charset (windows-1255 Hebrew)", async () => {
    env.web().routes.set("/hebrew.txt", {
      headers: { "content-type": "text/plain" },
      body: iconv.encode(HEBREW_GENESIS, "windows-1255"),
    });
    expect(await env.run("scrape_url", { url: `${env.web().url}/hebrew.txt` })).toBe(HEBREW_GENESIS);
  });

  it.each([
    [1, 3],
    [7, 10],
    [100, 120],
    [999, 120],
    [4000, 120],
  ])("pages losslessly with max_chars=%i: the bodies concatenate to the full text", async (maxChars, paragraphs) => {
    const html = article(longParagraphs.slice(0, paragraphs));
    env.web().routes.set("/long", { body: html });
    const full = extractHtmlText(html).text;
    const pages = await followPages(
      (args) => env.outcome("scrape_url", args),
      { url: `${env.web().url}/long`, max_chars: maxChars },
      { limit: env.services.limits.MAX_TOOL_RESULT_CHARS },
    );
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.map((p) => p.body).join("")).toBe(full);
  });

  it("pages end between words: no page of an English article ends inside a word", async () => {
    env.web().routes.set("/long", { body: article(longParagraphs) });
    const pages = await followPages(
      (args) => env.outcome("scrape_url", args),
      { url: `${env.web().url}/long`, max_chars: 333 },
      { limit: env.services.limits.MAX_TOOL_RESULT_CHARS },
    );
    for (const page of pages.slice(0, -1)) expect(page.body).toMatch(/\s$/);
  });

  it.each([7, 100, 333])("pages spaceless Japanese losslessly with max_chars=%i", async (maxChars) => {
    const html = article([RASHOMON.repeat(30), `${RASHOMON}🎉👨‍👩‍👧`.repeat(10)]);
    env.web().routes.set("/ja", { body: html });
    const pages = await followPages(
      (args) => env.outcome("scrape_url", args),
      { url: `${env.web().url}/ja`, max_chars: maxChars },
      { limit: env.services.limits.MAX_TOOL_RESULT_CHARS },
    );
    expect(pages.map((p) => p.body).join("")).toBe(extractHtmlText(html).text);
  });

  it("caps each page so the whole result, footer included, stays within MAX_TOOL_RESULT_CHARS", async () => {
    env.web().routes.set("/long", { body: article(longParagraphs) });
    const result = await env.run("scrape_url", { url: `${env.web().url}/long`, max_chars: 50_000 });
    expect(result.length).toBeLessThanOrEqual(6000);
    expect(result).toContain("\n\n---page-info---\nhas_more: true\nnext_token: ");
  });

  it("uses the default max_chars for a missing, zero or negative value", async () => {
    env.web().routes.set("/long", { body: article(longParagraphs) });
    for (const max_chars of [undefined, 0, -5, "0"]) {
      // Missing is an absent key: arguments come as JSON, which has no undefined.
      const args = { url: `${env.web().url}/long`, ...(max_chars === undefined ? {} : { max_chars }) };
      const result = await env.run("scrape_url", args);
      const body = result.split("\n\n---page-info---")[0] ?? "";
      // The default room, less what ending between words gave back (at most 15 %).
      expect(body.length).toBeLessThanOrEqual(4000);
      expect(body.length).toBeGreaterThanOrEqual(3400);
    }
  });

  it("a continuation reads the text extracted from the first fetch: no request to the web server", async () => {
    env.web().routes.set("/long", { body: article(longParagraphs) });
    const first = parsePageInfo(await env.run("scrape_url", { url: `${env.web().url}/long`, max_chars: 500 }));
    env.web().routes.set("/long", { body: article(["The page changed since."]) });
    const second = parsePageInfo(
      await env.run("scrape_url", { continue_from: first.pageInfo?.nextToken, max_chars: 500 }),
    );
    expect(env.web().requests.map((r) => r.path)).toEqual(["/long"]);
    const full = extractHtmlText(article(longParagraphs)).text;
    expect(first.body + second.body).toBe(full.slice(0, first.body.length + second.body.length));
    // A new call (no token) reads the page afresh.
    expect(await env.run("scrape_url", { url: `${env.web().url}/long` })).toBe("The page changed since.");
  });

  it("the token's URL wins over a url argument", async () => {
    env.web().routes.set("/a", { body: article(["A ".repeat(3000)]) });
    env.web().routes.set("/b", { body: article(["B"]) });
    const first = await env.run("scrape_url", { url: `${env.web().url}/a`, max_chars: 100 });
    const token = first.split("next_token: ")[1] ?? "";
    const second = await env.run("scrape_url", { url: `${env.web().url}/b`, continue_from: token, max_chars: 100 });
    expect(second.startsWith("A A")).toBe(true);
  });
});

describe("scrape_url errors", () => {
  it.each(["", "   "])("an empty url is %j → Invalid URL.", async (url) => {
    expect(await env.run("scrape_url", { url })).toBe("Invalid URL.");
  });

  it("a malformed URL is Invalid URL.", async () => {
    expect(await env.run("scrape_url", { url: "http://" })).toBe("Invalid URL.");
  });

  it("a private address is refused by the guard without any connection", async () => {
    const result = await env.run("scrape_url", { url: "http://10.0.0.1/admin" });
    expect(result.startsWith("Blocked URL: http://10.0.0.1/admin")).toBe(true);
  });

  it("a file: URL is refused", async () => {
    expect(await env.run("scrape_url", { url: "file:///etc/passwd" })).toMatch(/^(Blocked URL: |Invalid URL\.)/);
  });

  it("a 404 is Failed to fetch with the reason", async () => {
    expect(await env.run("scrape_url", { url: `${env.web().url}/missing` })).toBe(
      `Failed to fetch ${env.web().url}/missing: HTTP 404`,
    );
  });

  it.each(["image/png", "audio/mpeg", "video/mp4"])("refuses %s content", async (type) => {
    env.web().routes.set("/media", { headers: { "content-type": type }, body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) });
    expect(await env.run("scrape_url", { url: `${env.web().url}/media` })).toContain(
      `unsupported content type ${type}`,
    );
  });

  it("an invalid continuation token is answered as such and never followed", async () => {
    const result = await env.run("scrape_url", { continue_from: "bogus-token" });
    expect(result.startsWith("Invalid continuation token: ")).toBe(true);
    expect(env.web().requests).toEqual([]);
  });

  it("a well-signed token whose URL is private goes through the guard again and is refused", async () => {
    const token = makeToken(
      { tool: "scrape_url", url: "http://169.254.169.254/latest/meta-data/", offset: 10 },
      env.services.secret,
    );
    expect((await env.run("scrape_url", { continue_from: token })).startsWith("Blocked URL: ")).toBe(true);
  });

  it("a token from another tool is refused", async () => {
    const token = makeToken(
      { tool: "pdf_to_text", url: `${env.web().url}/x`, page_index: 0, page_char_offset: 0 },
      env.services.secret,
    );
    expect(await env.run("scrape_url", { continue_from: token })).toContain("belongs to pdf_to_text");
  });
});
