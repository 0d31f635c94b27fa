import { createElement } from "react";
import { describe, expect, it } from "vitest";
import type { McpServerView } from "@/lib/client/types";
import { renderHtml } from "@/tests/support/render-html";
import { ServerForm } from "./server-form";

const noop = async () => null;
const form = (stdioAllowed: boolean, server?: McpServerView, locale: "en" | "ja" = "en") =>
  renderHtml(createElement(ServerForm, { server, stdioAllowed, onSubmit: noop, onCancel: () => {} }), locale);

const stored: McpServerView = {
  name: "files",
  origin: "settings",
  enabled: true,
  transport: { type: "stdio", command: "node", args: ["files.js"], env: {} },
  disabledTools: [],
  toolApproval: { default: null, tools: {} },
  state: { name: "files", status: "idle", tools: [] },
  shadowedByFile: false,
};

describe("the MCP server form when stdio servers are not allowed from the page", () => {
  it("offers HTTP, disables stdio and says why and where to put them, in both languages", () => {
    const html = form(false);
    expect(html).toContain('data-testid="mcp-stdio-off"');
    expect(html).toMatch(/<option value="stdio" disabled="">/);
    expect(html).toContain('data-testid="mcp-url"');
    expect(html).toContain("MCP_STDIO_FROM_UI=1");
    expect(form(false, undefined, "ja")).toContain("MCP_CONFIG ファイルに記載する");
  });

  it("shows a stored stdio server's command without letting it be changed or saved", () => {
    const html = form(false, stored);
    expect(html).toMatch(/<fieldset disabled=""/);
    expect(html).toMatch(/data-testid="mcp-save"[^>]*disabled=""/);
  });

  it("with MCP_STDIO_FROM_UI=1 the form starts on stdio and says nothing more", () => {
    const html = form(true);
    expect(html).not.toContain("mcp-stdio-off");
    expect(html).toContain('data-testid="mcp-command"');
  });
});
