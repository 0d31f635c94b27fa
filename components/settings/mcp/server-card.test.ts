import { createElement } from "react";
import { describe, expect, it } from "vitest";
import type { McpServerView } from "@/lib/client/types";
import { renderHtml } from "@/tests/support/render-html";
import { ServerCard } from "./server-card";

const server: McpServerView = {
  name: "hostile",
  origin: "settings",
  enabled: true,
  transport: { type: "stdio", command: "node", args: ["server.js"], env: {} },
  disabledTools: [],
  toolApproval: { default: null, tools: {} },
  shadowedByFile: false,
  state: {
    name: "hostile",
    status: "connected",
    tools: [
      {
        name: "ok",
        qualifiedName: "hostile__ok",
        description: "Answers ok.",
        enabled: true,
        annotations: { readOnlyHint: true },
        approval: "allow",
      },
    ],
    droppedTools: [{ name: "bomb", reason: "Its input schema takes more than 10000 steps to read." }],
  },
};

const nothing = async () => null;
const actions = { update: nothing, test: nothing, remove: nothing, edit: () => {} };
const render = (view: McpServerView, locale: "en" | "ja" = "en") =>
  renderHtml(createElement(ServerCard, { server: view, actions }), locale);

describe("an MCP server's card", () => {
  it("names each dropped tool with its reason, apart from the offered tools, in both languages", () => {
    const html = render(server);
    expect(html).toContain('data-testid="mcp-dropped-tool" data-tool="bomb"');
    expect(html).toContain("is not offered: Its input schema takes more than 10000 steps to read.");
    expect(html).toContain('data-tool="hostile__ok"');
    expect(html).not.toContain('data-testid="mcp-tool" data-tool="hostile__bomb"');
    expect(render(server, "ja")).toContain("は提供されません: Its input schema");
  });

  it("shows no dropped list when every listed tool is offered", () => {
    const { droppedTools: _, ...state } = server.state;
    expect(render({ ...server, state })).not.toContain("mcp-dropped-tool");
  });
});
