import { createElement } from "react";
import { createTranslator } from "use-intl";
import { describe, expect, it } from "vitest";
import type { CitationCheck, CitationVerdict } from "@/lib/protocol/citations";
import type { Source } from "@/lib/protocol/run-events";
import en from "@/messages/en.json";
import ja from "@/messages/ja.json";
import { renderHtml } from "@/tests/support/render-html";
import { chatRequest } from "../use-chat-runs";
import { CitationPopover, type FindSupport } from "./citation-popover";
import { findSupportInput, findSupportQuestion } from "./find-support";

const check = (verdict: CitationVerdict, n = 2): CitationCheck => ({
  sentence: "Quokkas weigh 12 kg",
  start: 0,
  end: 24,
  n,
  verdict,
  passage: { text: "The quokka weighs 2.5 kg.", start: 0, end: 25, matched: ["quokka"] },
  missing: ["12"],
});

const PAGE: Source = { n: 2, url: "https://example.com/quokka", title: "Quokka facts" };
const FILE: Source = { n: 3, url: "attachment:f9", title: "report.pdf" };

const question = (locale: "en" | "ja", c: CitationCheck, source: Source | null) =>
  findSupportQuestion(
    c,
    source,
    createTranslator({ locale, messages: locale === "en" ? en : ja, namespace: "citations" }),
  );

describe("the Find support question", () => {
  it("quotes the claim and names the cited source's number, title and URL, in English", () => {
    expect(question("en", check("unsupported"), PAGE)).toBe(
      "Find support for this claim: “Quokkas weigh 12 kg” (cited: [2] Quokka facts, https://example.com/quokka). " +
        "Look beyond the cited source: search for sources that support or refute the claim, read them, and cite them.",
    );
  });

  it("is asked in Japanese in a Japanese interface, with the claim and the cited source", () => {
    const text = question("ja", check("partly"), PAGE);
    expect(text).toContain("裏付けを探してください");
    expect(text).toContain("「Quokkas weigh 12 kg」");
    expect(text).toContain("引用: [2] Quokka facts、https://example.com/quokka");
  });

  it("names an attached file by its name alone, and a source it does not know by its number", () => {
    const file = question("en", check("not_found", 3), FILE);
    expect(file).toContain("(cited: [3] report.pdf)");
    expect(file).not.toContain("attachment:");
    expect(question("en", check("not_found", 4), null)).toContain("(cited: [4])");
  });
});

describe("the Find support turn", () => {
  it("posts the question after the answer, in the conversation's own mode: it names none, so Plan first stays as set", () => {
    const input = findSupportInput({
      conversationId: "c1",
      model: "qwen3:8b",
      answerId: "a1",
      question: "Find support…",
      after: ["q2", "a2"],
    });
    expect(input.replaces).toEqual(["q2", "a2"]);
    expect(JSON.parse(JSON.stringify(chatRequest(input)))).toEqual({
      conversationId: "c1",
      model: "qwen3:8b",
      message: "Find support…",
      parentId: "a1",
    });
  });
});

const popover = (verdict: CitationVerdict, findSupport: FindSupport | null, locale?: "ja") =>
  renderHtml(
    createElement(CitationPopover, {
      check: check(verdict),
      anchor: {} as HTMLElement,
      container: { current: null },
      source: PAGE,
      conversationId: "c1",
      findSupport,
      onClose: () => {},
    }),
    locale,
  );

const button = (html: string) => /<button [^>]*data-testid="find-support"[^>]*>/.exec(html)?.[0] ?? null;
const idle: FindSupport = { blocked: false, start: async () => null };

describe("Find support in the citation popover", () => {
  it("is offered under a claim not supported, partly supported or not found, never under a supported or found one", () => {
    for (const verdict of ["unsupported", "partly", "not_found"] as const) {
      expect(button(popover(verdict, idle)), verdict).not.toBeNull();
    }
    for (const verdict of ["supported", "found"] as const) {
      expect(button(popover(verdict, idle)), verdict).toBeNull();
    }
  });

  it("is absent for an answer that cannot start a turn (not stored yet)", () => {
    expect(button(popover("unsupported", null))).toBeNull();
  });

  it("is disabled while a run works in the conversation", () => {
    expect(button(popover("unsupported", idle))).not.toMatch(/ disabled=""/);
    expect(button(popover("unsupported", { ...idle, blocked: true }))).toMatch(/ disabled=""/);
  });

  it("is labelled in Japanese too", () => {
    expect(popover("partly", idle, "ja")).toContain("裏付けを探す");
  });
});
