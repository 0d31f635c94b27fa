import path from "node:path";
import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { unique } from "./support/unique";

// The SDK test server (tests/support/mcp-test-server.mjs) as a stdio server, added in the settings
// page by the single local user (who is the admin). Removed again after, so other specs' runs keep
// the built-in tools only.
const SERVER = "e2e";
const TEST_SERVER = path.resolve("tests/support/mcp-test-server.mjs");
const ADMIN_ORIGIN = { origin: "http://127.0.0.1:3100" };

test.beforeEach(async () => {
  await fakeOllama.reset();
});
test.afterEach(async ({ request }) => {
  await request.delete(`/api/admin/mcp/servers/${SERVER}`, { headers: ADMIN_ORIGIN });
});

async function addTestServer(page: Page): Promise<void> {
  await page.goto("/settings");
  const section = page.getByTestId("settings-mcp");
  await section.getByTestId("mcp-add").click();
  const form = section.getByTestId("mcp-server-form");
  await form.getByTestId("mcp-name").fill(SERVER);
  await form.getByTestId("mcp-command").fill(process.execPath);
  await form.getByTestId("mcp-args").fill(TEST_SERVER);
  await form
    .getByTestId("mcp-env")
    .getByRole("button", { name: /Add to/ })
    .click();
  await form.getByRole("textbox", { name: "Environment variables: name 1" }).fill("E2E_TOKEN");
  await form.getByLabel("Environment variables: value 1").fill("never-shown-again");
  await form.getByTestId("mcp-save").click();
  await expect(form).toHaveCount(0);
}

test("an admin adds the stdio test server in settings, a chat uses its tool, and the composer switches it off for that conversation", async ({
  page,
}) => {
  await addTestServer(page);
  const card = page.locator(`[data-testid="mcp-server"][data-name="${SERVER}"]`);
  await expect(card.getByTestId("mcp-status")).toHaveAttribute("data-status", "idle");
  await card.getByTestId("mcp-test").click();
  await expect(card.getByTestId("mcp-status")).toHaveAttribute("data-status", "connected");
  await expect(card.locator('[data-tool="e2e__echo"]')).toContainText("Echoes the text back.");
  await expect(page.getByText("never-shown-again")).toHaveCount(0);

  // The test server's tools and the built-ins are over the selection threshold: the loop selects first.
  await fakeOllama.script(
    { when: { hasTools: true }, toolCalls: [{ name: "select_tools", arguments: { tools: ["e2e__echo"] } }] },
    { when: { hasTools: true }, toolCalls: [{ name: "e2e__echo", arguments: { text: "hello from MCP" } }] },
  );
  const chat = new ChatPage(page);
  await chat.startConversation(unique("Echo through the server"));
  await chat.expectAnswerDone();
  const toolCard = chat.toolCard("e2e__echo");
  await expect(toolCard).toHaveAttribute("data-state", "ok");
  await chat.openTrail();
  await toolCard.getByTestId("tool-card-toggle").click();
  await expect(toolCard.getByTestId("tool-observation")).toContainText("hello from MCP");

  // Switched off for this conversation: the next turn's model is offered no tool of the server.
  await page.getByTestId("tool-groups-button").click();
  const group = page.locator(`[data-testid="tool-group"][data-group="mcp:${SERVER}"]`);
  await group.getByRole("checkbox").uncheck();
  await expect(page.getByTestId("tool-groups-button")).toContainText("1/2");
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("tool-groups-panel")).toHaveCount(0);
  await fakeOllama.reset();
  await chat.send("again, without the server");
  await expect(chat.assistantMessages).toHaveCount(2);
  await chat.expectAnswerDone();
  const loop = (await fakeOllama.chatRequests()).find((request) => request.body.tools);
  const offered = (loop?.body.tools ?? []) as { function: { name: string } }[];
  // The built-in tools, `remember` among them (memory is on by default).
  expect(offered.map((tool) => tool.function.name).sort()).toEqual(
    ["pdf_to_text", "remember", "scrape_url", "search_and_fetch", "web_search"].sort(),
  );

  // The choice belongs to the conversation: a reload shows it.
  await page.reload();
  await page.getByTestId("tool-groups-button").click();
  await expect(group.getByRole("checkbox")).not.toBeChecked();
});

const addTestServerByApi = async (request: APIRequestContext) => {
  const added = await request.post("/api/admin/mcp/servers", {
    headers: ADMIN_ORIGIN,
    data: { name: SERVER, transport: { type: "stdio", command: process.execPath, args: [TEST_SERVER], env: {} } },
  });
  expect(added.status()).toBe(201);
};

test("the composer reads the tool groups again when the window regains focus", async ({ page, request }) => {
  await new ChatPage(page).open("/");
  const button = page.getByTestId("tool-groups-button");
  await expect(button).toContainText("1/1");
  await addTestServerByApi(request);
  await page.evaluate(() => window.dispatchEvent(new Event("focus")));
  await expect(button).toContainText("2/2");
});

test("the composer reads the tool groups again when its menu opens", async ({ page, request }) => {
  await new ChatPage(page).open("/");
  const button = page.getByTestId("tool-groups-button");
  await expect(button).toContainText("1/1");
  // Not through a focus of the window (which reads them too): counted to be sure.
  await page.evaluate(() => {
    (window as { focuses?: number }).focuses = 0;
    window.addEventListener("focus", () => {
      (window as { focuses?: number }).focuses! += 1;
    });
  });
  await addTestServerByApi(request);
  await button.click();
  await expect(page.getByTestId("tool-group")).toHaveCount(2);
  await expect(button).toContainText("2/2");
  expect(await page.evaluate(() => (window as { focuses?: number }).focuses)).toBe(0);
});

const schemes = ["light", "dark"] as const;
const sizes = [
  { name: "wide", viewport: { width: 1280, height: 800 } },
  { name: "narrow", viewport: { width: 390, height: 844 } },
] as const;

// Screenshot artifacts (test-results/screens): the MCP settings section and the composer's Tools menu.
for (const size of sizes) {
  for (const scheme of schemes) {
    test(`artifact: MCP settings and the Tools menu, ${scheme}, ${size.name}`, async ({ page }) => {
      await page.setViewportSize(size.viewport);
      await page.emulateMedia({ colorScheme: scheme });
      await addTestServer(page);
      const card = page.locator(`[data-testid="mcp-server"][data-name="${SERVER}"]`);
      await card.getByTestId("mcp-test").click();
      await expect(card.getByTestId("mcp-status")).toHaveAttribute("data-status", "connected");
      const chat = new ChatPage(page);
      await page.getByTestId("settings-mcp").scrollIntoViewIfNeeded();
      await chat.screenshot("mcp-settings");
      await card.getByTestId("mcp-edit").click();
      await page.getByTestId("mcp-server-form").scrollIntoViewIfNeeded();
      await chat.screenshot("mcp-settings-edit");

      await chat.open("/");
      await page.getByTestId("tool-groups-button").click();
      await expect(page.getByTestId("tool-group")).toHaveCount(2);
      await chat.screenshot("composer-tool-groups");
    });
  }
}
