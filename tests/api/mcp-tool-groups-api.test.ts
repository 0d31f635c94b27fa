import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as add, GET as list } from "@/app/api/admin/mcp/servers/route";
import { POST as chat } from "@/app/api/chat/route";
import { GET as getOne, PATCH } from "@/app/api/conversations/[id]/route";
import { POST as create } from "@/app/api/conversations/route";
import { getDb } from "@/lib/db/client";
import { mcpServers } from "@/lib/db/schema";
import { resetConfigForTests } from "@/lib/env-config";
import { resetServerMcpForTests } from "@/lib/mcp/server-hub";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import {
  expectApiError,
  jsonRequest,
  type ParsedEvent,
  params,
  readEvents,
  setupAppEnv,
  waitIdle,
} from "@/tests/support/app-env";
import { type FakeMcpHub, fakeMcpHub } from "@/tests/support/fake-mcp-hub";

// Per conversation, the composer switches tool groups: "web" (the built-in tools) and each MCP server.
const fake = setupFakeOllama();
setupAppEnv(fake);

let hub: FakeMcpHub;
/** The built-in tools a chat without files is offered (memory is on by default: `remember` too). */
const BUILTIN = ["web_search", "scrape_url", "pdf_to_text", "search_and_fetch", "remember"];

// These tests add stdio servers through the API, as an install that allows it does.
beforeAll(() => {
  process.env.MCP_STDIO_FROM_UI = "1";
  resetConfigForTests();
});
afterAll(() => {
  delete process.env.MCP_STDIO_FROM_UI;
  resetConfigForTests();
});

beforeEach(async () => {
  await (await getDb()).delete(mcpServers);
  hub = fakeMcpHub({ failing: ["broken"] });
  await resetServerMcpForTests(() => hub);
});
afterAll(() => resetServerMcpForTests());

async function addServer(name: string, enabled = true): Promise<void> {
  const body = { name, enabled, transport: { type: "stdio", command: "node", args: [`${name}.js`] } };
  expect((await add(jsonRequest("/api/admin/mcp/servers", "POST", body))).status).toBe(201);
}

async function newConversation(
  body: Record<string, unknown> = {},
): Promise<{ id: string; disabledToolGroups: string[] }> {
  const response = await create(jsonRequest("/api/conversations", "POST", body));
  expect(response.status).toBe(201);
  return ((await response.json()) as { conversation: { id: string; disabledToolGroups: string[] } }).conversation;
}

async function runChat(conversationId: string, message = "hello"): Promise<ParsedEvent[]> {
  const response = await chat(jsonRequest("/api/chat", "POST", { conversationId, message }));
  expect(response.status).toBe(200);
  const events = await readEvents(response);
  await waitIdle(fake(), conversationId);
  return events;
}

/** The tool names the model was offered in the run's first (tool loop) call. */
const toolsOffered = () =>
  ((fake().chatRequests()[0]?.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

describe("tool groups per conversation", () => {
  it("the local user of single-user mode configures MCP servers like an admin", async () => {
    await addServer("solo");
    const listed = (await (await list(jsonRequest("/api/admin/mcp/servers", "GET"))).json()) as {
      servers: { name: string }[];
    };
    expect(listed.servers.map((s) => s.name)).toContain("solo");
  });

  it("a conversation keeps the groups it was created with, and PATCH changes them", async () => {
    const created = await newConversation({ disabledToolGroups: ["mcp:files", "web", "web"] });
    expect(created.disabledToolGroups).toEqual(["mcp:files", "web"]);
    const patched = await PATCH(
      jsonRequest("", "PATCH", { disabledToolGroups: ["mcp:notes"] }),
      params({ id: created.id }),
    );
    expect(patched.status).toBe(200);
    const detail = (await (await getOne(jsonRequest("", "GET"), params({ id: created.id }))).json()) as {
      conversation: { disabledToolGroups: string[] };
    };
    expect(detail.conversation.disabledToolGroups).toEqual(["mcp:notes"]);
  });

  it("a bad tool group is refused and changes nothing", async () => {
    const { id } = await newConversation({ disabledToolGroups: ["web"] });
    for (const groups of [["mcp:"], ["shell"], ["mcp:a b"], [`mcp:${"x".repeat(33)}`], Array(101).fill("web"), "web"]) {
      const response = await PATCH(jsonRequest("", "PATCH", { disabledToolGroups: groups }), params({ id }));
      await expectApiError(response, 400, "bad_request:validation");
    }
    await expectApiError(
      await create(jsonRequest("/api/conversations", "POST", { disabledToolGroups: ["mcp:ü"] })),
      400,
      "bad_request:validation",
    );
    const detail = (await (await getOne(jsonRequest("", "GET"), params({ id }))).json()) as {
      conversation: { disabledToolGroups: string[] };
    };
    expect(detail.conversation.disabledToolGroups).toEqual(["web"]);
  });

  it("a run offers the built-in tools and the enabled MCP servers' tools the conversation did not switch off", async () => {
    await addServer("files");
    await addServer("notes");
    await addServer("idle", false);
    const { id } = await newConversation();
    fake().script({ when: { hasTools: true }, content: "Hi." });
    await runChat(id);
    expect(toolsOffered().sort()).toEqual([...BUILTIN, "files__echo", "notes__echo"].sort());
    expect(hub.toolRequests.at(-1)).toEqual(["files", "notes"]);

    fake().reset();
    await PATCH(jsonRequest("", "PATCH", { disabledToolGroups: ["web", "mcp:notes"] }), params({ id }));
    fake().script({ when: { hasTools: true }, content: "Hi." });
    await runChat(id, "again");
    expect(toolsOffered()).toEqual(["files__echo"]);
  });

  it("a run with every group off still answers, with no tools offered", async () => {
    await addServer("files");
    const { id } = await newConversation({ disabledToolGroups: ["web", "mcp:files"] });
    fake().script({ when: { hasTools: false }, chunks: ["Plain ", "answer."] });
    const events = await runChat(id);
    const answer = events.filter((e) => e.event === "answer" && e.data.status === "delta").map((e) => e.data.content);
    expect(answer.join("")).toBe("Plain answer.");
    expect(fake().chatRequests()[0]?.body.tools).toBeUndefined();
  });

  it("a server that cannot connect adds no tool, and a notice names it, as a sentence and as data", async () => {
    await addServer("broken");
    const { id } = await newConversation();
    fake().script({ when: { hasTools: true }, content: "Hi." });
    const events = await runChat(id);
    expect(toolsOffered().sort()).toEqual([...BUILTIN].sort());
    const notices = events.flatMap((e) => (e.event === "step" && e.data.type === "notice" ? [e.data] : []));
    expect(notices).toEqual([
      expect.objectContaining({
        text: "The MCP server broken could not be reached: its tools are left out of this answer.",
        about: { code: "mcp_unavailable", server: "broken" },
      }),
    ]);
  });
});
