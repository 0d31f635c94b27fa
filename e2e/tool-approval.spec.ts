import path from "node:path";
import { expect, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { unique } from "./support/unique";

// An MCP tool that acts (the test server's write_note, marked destructiveHint) waits in the trail
// for the user's approval (docs/security.md, "Tools that act need the user's consent").
const SERVER = "approvals";
const TEST_SERVER = path.resolve("tests/support/mcp-test-server.mjs");
const ADMIN_ORIGIN = { origin: "http://127.0.0.1:3100" };
const WRITE = `${SERVER}__write_note`;

test.beforeEach(async ({ request }) => {
  await fakeOllama.reset();
  const added = await request.post("/api/admin/mcp/servers", {
    headers: ADMIN_ORIGIN,
    data: { name: SERVER, transport: { type: "stdio", command: process.execPath, args: [TEST_SERVER], env: {} } },
  });
  expect(added.status()).toBe(201);
});
test.afterEach(async ({ request }) => {
  await request.delete(`/api/admin/mcp/servers/${SERVER}`, { headers: ADMIN_ORIGIN });
});

/** The model selects the write tool (the tools are over the selection threshold), then calls it. */
const scriptWrite = (text: string) =>
  fakeOllama.script(
    { when: { hasTools: true }, toolCalls: [{ name: "select_tools", arguments: { tools: [WRITE] } }] },
    { when: { hasTools: true }, toolCalls: [{ name: WRITE, arguments: { text } }] },
  );

test("a tool that acts waits for approval in the trail; approved once, it runs, and the card says so after a reload", async ({
  page,
}) => {
  await scriptWrite("note from e2e");
  const chat = new ChatPage(page);
  await chat.startConversation(unique("Write a note"));
  const card = page.getByTestId("approval-card");
  await expect(card).toHaveAttribute("data-state", "waiting");
  await expect(card).toContainText("write_note wants to run");
  await expect(card.getByTestId("approval-args")).toContainText("note from e2e");
  await expect(card.getByTestId("approval-annotations")).toContainText("may delete or overwrite");
  const toolCard = chat.toolCard(WRITE);
  await expect(toolCard).toHaveAttribute("data-state", "running");

  await card.getByTestId("approval-once").click();
  await chat.expectAnswerDone();
  await expect(toolCard).toHaveAttribute("data-state", "ok");
  await chat.openTrail();
  await expect(card).toHaveAttribute("data-state", "once");
  await toolCard.getByTestId("tool-card-toggle").click();
  await expect(toolCard.getByTestId("tool-observation")).toContainText("wrote note from e2e");

  // Stored with the run: a reload shows how it was decided.
  await page.reload();
  await chat.openTrail();
  await expect(page.getByTestId("approval-card")).toHaveAttribute("data-state", "once");
  await expect(page.getByTestId("approval-outcome")).toContainText("Approved once");
});

test("denied, the tool does not run and the model reads that the user denied it", async ({ page }) => {
  await scriptWrite("never written");
  const chat = new ChatPage(page);
  await chat.startConversation(unique("Write another note"));
  const card = page.getByTestId("approval-card");
  await card.getByTestId("approval-deny").click();
  await chat.expectAnswerDone();
  const toolCard = chat.toolCard(WRITE);
  await expect(toolCard).toHaveAttribute("data-state", "error");
  await chat.openTrail();
  await toolCard.getByTestId("tool-card-toggle").click();
  await expect(toolCard.getByTestId("tool-observation")).toContainText("The user denied this call");
  const sawDenial = (await fakeOllama.chatRequests()).some((request) =>
    ((request.body.messages ?? []) as { role: string; content: string }[]).some(
      (message) => message.role === "tool" && message.content.includes("The user denied this call"),
    ),
  );
  expect(sawDenial).toBe(true);
});
