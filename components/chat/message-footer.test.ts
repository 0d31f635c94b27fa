import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { renderHtml } from "@/tests/support/render-html";
import { ConversationFilesContext } from "./files/conversation-files-context";
import { MessageFooter } from "./message-footer";

const footer = (props: Partial<Parameters<typeof MessageFooter>[0]>, locale: "en" | "ja" = "en") =>
  renderHtml(
    createElement(MessageFooter, {
      content: "",
      model: "llama3.2:latest",
      mode: "native",
      iterations: 1,
      toolsRan: false,
      usage: { inputTokens: 1200, outputTokens: 250, totalTokens: 1450, generationMs: 4000 },
      elapsedMs: null,
      ...props,
    }),
    locale,
  ).replace(/<!-- -->/g, "");

describe("the footer under an answer", () => {
  const inConversation = (props: Partial<Parameters<typeof MessageFooter>[0]>, locale: "en" | "ja" = "en") =>
    renderHtml(
      createElement(
        ConversationFilesContext,
        { value: { conversationId: "c 1", names: new Map() } },
        createElement(MessageFooter, {
          content: "An answer [1].",
          model: null,
          mode: null,
          iterations: null,
          toolsRan: false,
          usage: null,
          elapsedMs: null,
          ...props,
        }),
      ),
      locale,
    );

  it("offers a stored answer as a Markdown or Word download, and print, in both locales", () => {
    const html = inConversation({ messageId: "m/1" });
    expect(html).toContain('href="/api/conversations/c%201/messages/m%2F1/export?format=md"');
    expect(html).toContain('href="/api/conversations/c%201/messages/m%2F1/export?format=docx"');
    expect(html).toContain('aria-label="Download as Markdown"');
    expect(html).toContain('aria-label="Download as Word"');
    expect(html).toContain('data-testid="answer-print"');
    const ja = inConversation({ messageId: "m/1" }, "ja");
    expect(ja).toContain('aria-label="Markdown でダウンロード"');
    expect(ja).toContain('aria-label="Word でダウンロード"');
  });

  it("offers no download for an answer not stored yet", () => {
    expect(inConversation({ messageId: null })).not.toContain("answer-download");
  });

  it("says that the tool loop stopped at the iteration limit, in both locales", () => {
    expect(footer({ toolsRan: true, iterations: 50, iterationLimit: true })).toContain("50 iterations (limit reached)");
    expect(footer({ toolsRan: true, iterations: 50, iterationLimit: true }, "ja")).toContain(
      "50 回の反復（上限に到達）",
    );
    expect(footer({ toolsRan: true, iterations: 50 })).not.toContain("limit reached");
  });

  it("names the mode and iterations only when a tool ran", () => {
    const plain = footer({ toolsRan: false });
    expect(plain).toContain("llama3.2:latest");
    expect(plain).not.toContain("iteration");
    expect(plain).not.toContain("native tools");
    const withTools = footer({ toolsRan: true, iterations: 3 });
    expect(withTools).toContain("native tools");
    expect(withTools).toContain("3 iterations");
  });

  it("shows tokens per second from the output tokens and the generation time, in both locales", () => {
    expect(footer({ usage: { inputTokens: 10, outputTokens: 125, totalTokens: 135, generationMs: 2000 } })).toContain(
      "62.5 tokens/s",
    );
    expect(
      footer({ usage: { inputTokens: 10, outputTokens: 12345, totalTokens: 12355, generationMs: 1000 } }, "ja"),
    ).toContain("12,345 トークン/秒");
  });

  it("shows no tokens per second when Ollama did not say how long it took", () => {
    expect(footer({ usage: { inputTokens: 10, outputTokens: 125, totalTokens: 135 } })).not.toContain("tokens/s");
    expect(footer({ usage: { inputTokens: 10, outputTokens: 0, totalTokens: 10, generationMs: 5 } })).not.toContain(
      "tokens/s",
    );
  });
});
