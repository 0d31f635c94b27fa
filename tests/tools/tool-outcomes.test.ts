import { describe, expect, it } from "vitest";
import { registryToolbox } from "@/lib/chat/toolbox";
import { insertFile } from "@/lib/db/files";
import { createBuiltinRegistry } from "@/lib/tools/builtin";
import { renderObservation, type ToolErrorKind } from "@/lib/tools/outcome";
import { duckDuckGoPage } from "@/tests/support/fake-web";
import { makeEndlessPdf } from "@/tests/support/pdf-bombs";
import { makeCorruptPdf, makeEncryptedPdf, makeTextPdf } from "@/tests/support/pdf-fixtures";
import { setupToolEnv } from "@/tests/support/tool-env";

/**
 * Every failure a built-in tool reports is an outcome with a kind; the model reads the same
 * sentence as before outcomes were data; and a result is never taken for a failure because of how
 * its text begins.
 */

const env = setupToolEnv();

const url = (path: string) => `${env.web().url}${path}`;

function serve(path: string, type: string, body: string | Uint8Array) {
  env
    .web()
    .routes.set(path, { headers: { "content-type": type }, body: typeof body === "string" ? body : Buffer.from(body) });
  return url(path);
}

function withLimits(limits: Partial<typeof env.services.limits>) {
  return createBuiltinRegistry({ ...env.services, limits: { ...env.services.limits, ...limits } });
}

interface FailureCase {
  tool: string;
  /** Arguments, built once the fake web and database of the test exist. */
  args: () => Record<string, unknown>;
  kind: ToolErrorKind;
  /** The observation the model reads, exactly, or a pattern where a part varies. */
  text: () => string | RegExp;
  registry?: () => ReturnType<typeof createBuiltinRegistry>;
}

const failures: Record<string, FailureCase> = {
  "scrape_url without a url": {
    tool: "scrape_url",
    args: () => ({ url: " " }),
    kind: "invalid_url",
    text: () => "Invalid URL.",
  },
  "scrape_url with a malformed url": {
    tool: "scrape_url",
    args: () => ({ url: "http://" }),
    kind: "invalid_url",
    text: () => "Invalid URL.",
  },
  "scrape_url of a private address": {
    tool: "scrape_url",
    args: () => ({ url: "http://10.0.0.1/admin" }),
    kind: "blocked_url",
    text: () => /^Blocked URL: http:\/\/10\.0\.0\.1\/admin \(.+\)$/,
  },
  "scrape_url of a 404": {
    tool: "scrape_url",
    args: () => ({ url: url("/missing") }),
    kind: "fetch_failed",
    text: () => `Failed to fetch ${url("/missing")}: HTTP 404`,
  },
  "scrape_url of a page over the size limit": {
    tool: "scrape_url",
    args: () => ({ url: serve("/huge", "text/plain", "x".repeat(3000)) }),
    kind: "too_large",
    text: () => `Failed to fetch ${url("/huge")}: response exceeds 2048 bytes`,
    registry: () =>
      createBuiltinRegistry({
        ...env.services,
        fetch: (target, options) => env.services.fetch(target, { ...options, maxBytes: 2048 }),
      }),
  },
  "scrape_url of an image": {
    tool: "scrape_url",
    args: () => ({ url: serve("/img", "image/png", new Uint8Array([0x89, 0x50, 0x4e, 0x47])) }),
    kind: "unsupported_content",
    text: () => `Failed to fetch ${url("/img")}: unsupported content type image/png (scrape_url reads text only).`,
  },
  "scrape_url of a PDF": {
    tool: "scrape_url",
    args: () => ({ url: serve("/doc.pdf", "application/pdf", makeTextPdf([["x"]])) }),
    kind: "unsupported_content",
    text: () => `Failed to fetch ${url("/doc.pdf")}: this is a PDF; read it with pdf_to_text.`,
  },
  "scrape_url with a garbage token": {
    tool: "scrape_url",
    args: () => ({ continue_from: "bogus-token" }),
    kind: "invalid_token",
    text: () => "Invalid continuation token: malformed or truncated token; copy next_token exactly",
  },
  "pdf_to_text without a source": {
    tool: "pdf_to_text",
    args: () => ({}),
    kind: "invalid_url",
    text: () => "Invalid URL.",
  },
  "pdf_to_text of a local path": {
    tool: "pdf_to_text",
    args: () => ({ url_or_path: "/etc/passwd" }),
    kind: "invalid_url",
    text: () =>
      "Only http(s) URLs and attachment:<id> references can be read; local paths and other schemes are refused.",
  },
  "pdf_to_text of an attachment without an id": {
    tool: "pdf_to_text",
    args: () => ({ url_or_path: "attachment: " }),
    kind: "invalid_url",
    text: () => "Invalid attachment reference.",
  },
  "pdf_to_text of a private address": {
    tool: "pdf_to_text",
    args: () => ({ url_or_path: "http://192.168.1.1/a.pdf" }),
    kind: "blocked_url",
    text: () => /^Blocked URL: http:\/\/192\.168\.1\.1\/a\.pdf \(.+\)$/,
  },
  "pdf_to_text of a 404": {
    tool: "pdf_to_text",
    args: () => ({ url_or_path: url("/gone.pdf") }),
    kind: "fetch_failed",
    text: () => `Failed to fetch ${url("/gone.pdf")}: HTTP 404`,
  },
  "pdf_to_text of a PDF over MAX_FETCH_MB": {
    tool: "pdf_to_text",
    args: () => ({ url_or_path: serve("/big.pdf", "application/pdf", new Uint8Array(1_100_000).fill(0x20)) }),
    kind: "too_large",
    text: () => "PDF exceeds the configured size limit.",
    registry: () => withLimits({ MAX_FETCH_MB: 1 }),
  },
  "pdf_to_text of an unknown attachment": {
    tool: "pdf_to_text",
    args: () => ({ url_or_path: "attachment:no-such-id" }),
    kind: "not_found",
    text: () => "Attachment not found: no-such-id. Use an attachment:<id> listed for this conversation.",
  },
  "pdf_to_text with a token of another tool": {
    tool: "pdf_to_text",
    args: () => ({ continue_from: "e30" }),
    kind: "invalid_token",
    text: () => "Invalid continuation token: missing signature; use a next_token returned by the tool",
  },
  "pdf_to_text of a page that is not a PDF": {
    tool: "pdf_to_text",
    args: () => ({ url_or_path: serve("/page.html", "text/html", "<p>not a pdf</p>") }),
    kind: "unsupported_content",
    text: () => `Not a PDF file. (${url("/page.html")})`,
  },
  "pdf_to_text of an encrypted PDF": {
    tool: "pdf_to_text",
    args: () => ({ url_or_path: serve("/enc.pdf", "application/pdf", makeEncryptedPdf()) }),
    kind: "unreadable_pdf",
    text: () => `PDF is encrypted (password protected). (${url("/enc.pdf")})`,
  },
  "pdf_to_text of a corrupt PDF": {
    tool: "pdf_to_text",
    args: () => ({ url_or_path: serve("/bad.pdf", "application/pdf", makeCorruptPdf()) }),
    kind: "unreadable_pdf",
    text: () => /^PDF is corrupt or unreadable: .+ \(http:\/\/.+\/bad\.pdf\)$/,
  },
  "pdf_to_text of a PDF needing more than PDF_TIME_BUDGET_S": {
    tool: "pdf_to_text",
    args: () => ({ url_or_path: serve("/endless.pdf", "application/pdf", makeEndlessPdf()) }),
    kind: "pdf_over_limit",
    text: () =>
      `Reading this PDF was stopped: it needed more than 1 s of processing time; the file may be damaged or built to exhaust the reader. (${url("/endless.pdf")})`,
    registry: () => withLimits({ PDF_TIME_BUDGET_S: 1 }),
  },
  "search_and_fetch without a query": {
    tool: "search_and_fetch",
    args: () => ({ query: " ", file_type: "pdf" }),
    kind: "invalid_input",
    text: () => "search_and_fetch needs a non-empty query.",
  },
  "search_and_fetch of an unsupported file type": {
    tool: "search_and_fetch",
    args: () => ({ query: "q", file_type: "exe" }),
    kind: "invalid_input",
    text: () => 'Unsupported file_type "exe". Use one of: pdf, csv, txt, md, json, html, htm, xml, py, js, ts.',
  },
  "search_and_fetch with a garbage token": {
    tool: "search_and_fetch",
    args: () => ({ continue_from: "not a token!" }),
    kind: "invalid_token",
    text: () => "Invalid continuation token: not a token issued by this tool",
  },
};

describe("tool failures are outcomes with a kind, read by the model as before", () => {
  it.each(Object.entries(failures))("%s", async (_label, failure) => {
    const outcome = await env.outcome(failure.tool, failure.args(), {}, failure.registry?.());
    if (outcome.ok) throw new Error(`expected a failure, got: ${outcome.output}`);
    expect(outcome.error.kind).toBe(failure.kind);
    const text = failure.text();
    if (typeof text === "string") expect(outcome.error.message).toBe(text);
    else expect(outcome.error.message).toMatch(text);
    // A tool's failure reads as its sentence alone.
    expect(renderObservation(outcome)).toBe(outcome.error.message);
  });

  it("an attachment over MAX_FETCH_MB is too_large like a fetched one", async () => {
    const file = await insertFile(env.db(), {
      conversationId: env.conversationId,
      origin: "upload",
      filename: "big.pdf",
      mime: "application/pdf",
      bytes: Buffer.alloc(1_100_000, 0x20),
      pageCount: null,
      sourceUrl: null,
    });
    const outcome = await env.outcome(
      "pdf_to_text",
      { url_or_path: `attachment:${file.id}` },
      {},
      withLimits({ MAX_FETCH_MB: 1 }),
    );
    expect(outcome).toEqual({
      ok: false,
      error: { kind: "too_large", message: "PDF exceeds the configured size limit." },
    });
  });
});

describe("results that are not failures", () => {
  it.each([
    ["Failed to fetch the quarterly numbers, the report says.", "text/plain"],
    ['{"error": "this page documents an API error format"}', "text/plain"],
    ["Blocked URL: a list of sites the school blocks", "text/plain"],
    ["Invalid continuation token: an essay on pagination", "text/plain"],
  ])("a page whose text begins like a failure is a result: %j", async (text, type) => {
    const page = serve("/looks-like-an-error", type, text);
    const toolbox = registryToolbox(env.registry, env.context(), 6000);
    const outcome = await toolbox.execute("scrape_url", { url: page }, new AbortController().signal);
    expect(outcome.ok).toBe(true);
    expect(await env.run("scrape_url", { url: page })).toBe(text);
  });

  it("failures the tools word freely are failures for the engine too", async () => {
    const toolbox = registryToolbox(env.registry, env.context(), 6000);
    const signal = new AbortController().signal;
    expect((await toolbox.execute("search_and_fetch", { query: "", file_type: "pdf" }, signal)).ok).toBe(false);
    const stopped = registryToolbox(withLimits({ PDF_TIME_BUDGET_S: 1 }), env.context(), 6000);
    const endless = serve("/endless.pdf", "application/pdf", makeEndlessPdf());
    expect((await stopped.execute("pdf_to_text", { url_or_path: endless }, signal)).ok).toBe(false);
  });

  it("an empty search and a search that finds no files are results", async () => {
    expect(await env.outcome("web_search", { query: " " })).toEqual({ ok: true, output: "[]", results: [] });
    env.web().routes.set("/html/", { body: duckDuckGoPage([]) });
    expect(await env.outcome("search_and_fetch", { query: "zzz", file_type: "md" })).toEqual({
      ok: true,
      output: 'No md files found for "zzz".',
    });
  });
});
