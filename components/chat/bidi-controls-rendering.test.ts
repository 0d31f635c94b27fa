import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { type Shell, ShellContext } from "@/components/shell/shell-context";
import { renderHtml } from "@/tests/support/render-html";
import { FileChip } from "./attachments/file-chip";
import { ChatHeader } from "./chat-header";
import { ConversationFilesContext } from "./files/conversation-files-context";
import { ArtifactPreview } from "./run/artifact-preview";
import { ToolCard } from "./run/tool-card";

const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;
const TROJAN = "invoice\u202Efdp\u2066.exe\u2069\u200F";

describe("bidi controls in what the page shows", () => {
  it("a file chip shows the name without bidi controls", () => {
    const html = renderHtml(
      createElement(FileChip, { filename: `${TROJAN}.pdf`, mime: "application/pdf", facts: "1 page" }),
    );
    expect(html).not.toMatch(BIDI);
    expect(html).toContain("invoicefdp.exe.pdf");
  });

  it("an artifact preview shows its name and Markdown without bidi controls", () => {
    const artifact = { filename: `${TROJAN}.md`, mimeType: "text/markdown", content: `# Report ${TROJAN}` };
    const html = renderHtml(createElement(ArtifactPreview, { artifact }));
    expect(html).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(html).toContain("invoicefdp.exe.md");
  });

  it("a tool card's summary shows a file name and arguments without bidi controls", () => {
    const card = (args: unknown) =>
      renderHtml(
        createElement(
          ConversationFilesContext,
          { value: { conversationId: "c1", names: new Map([["f1", `${TROJAN}.pdf`]]) } },
          createElement(ToolCard, {
            entry: {
              kind: "tool",
              key: "k",
              callId: "c",
              tool: "pdf_to_text",
              args,
              iteration: 1,
              startedAt: null,
              result: null,
            },
            runEnded: true,
          }),
        ),
      );
    expect(card({ url_or_path: "attachment:f1" })).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(card({ url_or_path: `https://example.org/${TROJAN}` })).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  });

  it("a conversation title written by the model shows without bidi controls", () => {
    const shell: Shell = {
      sidebarOpen: false,
      openSidebar: () => {},
      closeSidebar: () => {},
      sidebarCollapsed: false,
      toggleSidebar: () => {},
    };
    const html = renderHtml(
      createElement(ShellContext, { value: shell }, createElement(ChatHeader, { title: `Title ${TROJAN}` })),
    );
    expect(html).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  });
});
