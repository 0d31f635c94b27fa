import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { ReActAgent } from "@/lib/agent/react-agent";
import { registryToolbox } from "@/lib/chat/toolbox";
import { parseConfig } from "@/lib/env-config";
import type { AgentStep } from "@/lib/protocol/run-events";
import { createBuiltinRegistry } from "@/lib/tools/builtin";
import { pageTextCacheFor } from "@/lib/tools/page-text-cache";
import type { ToolRegistry } from "@/lib/tools/registry";
import type { ToolServices } from "@/lib/tools/services";
import { UrlLeakGuard } from "@/lib/tools/url-leak-guard";
import { INPUT, LIMITS } from "@/tests/support/agent-harness";
import { HUB_OPTIONS, stdioServer } from "@/tests/support/mcp";
import { type ScriptedChat, scriptedLLM } from "@/tests/support/scripted-llm";
import { createMcpHub } from "./hub";

/** The hub's tools inside a run: beside the built-in four, through the registry, read by the engine. */

const limits = parseConfig({});
const services: ToolServices = {
  limits,
  secret: randomBytes(32),
  fetch: async () => {
    throw new Error("no web in this test");
  },
  files: {
    get: async () => null,
    saveFetched: async () => {
      throw new Error("no files in this test");
    },
  },
  pageCache: pageTextCacheFor(limits),
};

const hub = createMcpHub(HUB_OPTIONS);
afterEach(() => hub.close());

async function runAgent(registry: ToolRegistry, chat: ScriptedChat[]) {
  const llm = scriptedLLM({ chat });
  const steps: AgentStep[] = [];
  const agent = new ReActAgent({
    llm,
    tools: registryToolbox(
      registry,
      { conversationId: "c1", language: "en", urlGuard: new UrlLeakGuard(parseConfig({})) },
      LIMITS.maxToolResultChars,
    ),
    language: "en",
    limits: LIMITS,
    onStep: (step) => steps.push(step),
  });
  await agent.run(INPUT, new AbortController().signal);
  return { llm, steps };
}

describe("MCP tools in a run", () => {
  it("with 20 MCP tools beside the built-ins, tool selection runs and the loop sees at most TOOL_SELECTION_MAX", async () => {
    hub.configure([stdioServer("facts", { args: ["--many"] })]);
    const registry = createBuiltinRegistry(services);
    for (const tool of await hub.tools(["facts"])) registry.register(tool);
    expect(registry.names).toHaveLength(24);
    expect(registry.names.length).toBeGreaterThan(LIMITS.toolSelectionThreshold);
    const picked = ["facts__tool_03", "web_search", "facts__tool_17", "facts__tool_01", "scrape_url", "facts__tool_20"];
    const { llm, steps } = await runAgent(registry, [
      { toolCalls: [{ name: "select_tools", arguments: { tools: [...picked, "facts__tool_09", "facts__tool_10"] } }] },
      { toolCalls: [{ name: "facts__tool_03", arguments: { query: "tides" } }] },
      { content: "answer" },
    ]);
    const catalogue = llm.chatCalls[0]?.messages[0]?.content ?? "";
    expect(catalogue).toContain("- facts__tool_20: Looks up fact number 20.");
    expect(catalogue).toContain("- web_search: ");
    const loopTools = llm.chatCalls[1]?.options.tools?.map((tool) => tool.name);
    expect(loopTools).toEqual(picked);
    expect(loopTools?.length).toBeLessThanOrEqual(LIMITS.toolSelectionMax);
    expect(steps).toContainEqual({
      type: "tool_selection",
      iteration: 0,
      selected: picked,
      total: 24,
      structured: { level: "native", calls: 1 },
    });
    expect(steps.find((step) => step.type === "tool_result")).toMatchObject({
      tool: "facts__tool_03",
      ok: true,
      observation: "tool_03: tides",
    });
  });

  it("an image result reaches the UI as an artifact while the model reads the notice and the tool's text", async () => {
    hub.configure([stdioServer("test")]);
    const registry = createBuiltinRegistry(services);
    for (const tool of await hub.tools(["test"])) registry.register(tool);
    const { llm, steps } = await runAgent(registry, [
      // The test server's tools and the built-ins are over the threshold too.
      { toolCalls: [{ name: "select_tools", arguments: { tools: ["test__image"] } }] },
      { toolCalls: [{ name: "test__image", arguments: {} }] },
      { content: "Here is the square." },
    ]);
    const toolMessage = llm.chatCalls[2]?.messages.at(-1)?.content ?? "";
    expect(toolMessage).toMatch(/^\[Artifact generated: test__image\.png\] The content is rendered as a preview/);
    expect(toolMessage).toContain("A red square.");
    expect(toolMessage).not.toContain("iVBOR");
    expect(steps.find((step) => step.type === "tool_result")).toMatchObject({
      ok: true,
      artifact: { filename: "test__image.png", mimeType: "image/png", content: expect.stringMatching(/^iVBOR/) },
    });
  });
});
