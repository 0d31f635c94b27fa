// npm run bench:ui — does the chat page stay smooth while a long answer streams into a long thread?
// A conversation with 40 earlier turns, then a 20,000-token answer streamed quickly (20-token chunks
// every 5 ms) while Chromium records long tasks (> 50 ms on the main thread). Also the chat page's
// first-load JavaScript, as transferred.
import { chromium } from "@playwright/test";
import { startFakeOllama } from "@/tests/fake-ollama/server";
import { sizeFromEnv } from "./smoke-mode.mts";
import { createConversation, fmt, readSseUntil, startServer } from "./support.mts";

const EARLIER_TURNS = sizeFromEnv("UI_TURNS", 40, 2);
const ANSWER_TOKENS = sizeFromEnv("UI_TOKENS", 20_000, 200);
const TOKENS_PER_CHUNK = 20;
const CHUNK_DELAY_MS = 5;
const END = "END-OF-ANSWER";

/** Markdown the way answers look: paragraphs, lists, a code block now and then; one word ≈ one token. */
function markdownTokens(count: number, seed: number): string[] {
  const words = ["quokka", "island", "streaming", "**bold**", "`code`", "answer", "model", "token", "the", "of"];
  const tokens: string[] = [];
  for (let i = 0; tokens.length < count; i++) {
    if (i % 400 === 0 && i > 0) tokens.push("\n\n```ts\n", "const", " x", " =", " 1;\n", "```\n\n");
    else if (i % 120 === 0) tokens.push(`\n\n## Part ${seed}.${i / 120}\n\n`);
    else if (i % 60 === 0) tokens.push("\n\n- ");
    else if (i % 15 === 0) tokens.push(".\n");
    else tokens.push(`${words[(i * 7 + seed) % words.length]} `);
  }
  return tokens.slice(0, count);
}

function chunked(tokens: string[]): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < tokens.length; i += TOKENS_PER_CHUNK) chunks.push(tokens.slice(i, i + TOKENS_PER_CHUNK).join(""));
  return chunks;
}

async function chat(base: string, conversationId: string, message: string): Promise<void> {
  const response = await fetch(`${base}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ conversationId, message }),
  });
  if (!response.ok) throw new Error(`chat → ${response.status}: ${await response.text()}`);
  await readSseUntil(response, (m) => m.event === "done");
}

async function main() {
  const fake = await startFakeOllama();
  let measuring = false;
  fake.setDefaultResponder((req) => {
    if (req.stream === false) return { content: "Earlier turn" };
    if (!measuring) return { chunks: chunked(markdownTokens(300, 1)) };
    return { chunks: [...chunked(markdownTokens(ANSWER_TOKENS, 2)), ` ${END}`], chunkDelayMs: CHUNK_DELAY_MS };
  });
  const server = await startServer({ OLLAMA_BASE_URL: fake.url });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
  });
  try {
    const id = await createConversation(server.base);
    for (let i = 0; i < EARLIER_TURNS; i++) await chat(server.base, id, `Earlier question ${i}`);

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${server.base}/c/${id}`, { waitUntil: "networkidle" });
    await page.getByTestId("composer-input").waitFor();
    const js = await page.evaluate(() =>
      performance
        .getEntriesByType("resource")
        .map((entry) => entry as PerformanceResourceTiming)
        .filter((entry) => entry.initiatorType === "script" || /\.js(\?|$)/.test(entry.name))
        .reduce(
          (sum, entry) => ({
            transfer: sum.transfer + (entry.transferSize || entry.encodedBodySize),
            decoded: sum.decoded + entry.decodedBodySize,
            files: sum.files + 1,
          }),
          { transfer: 0, decoded: 0, files: 0 },
        ),
    );

    await page.evaluate(() => {
      const w = window as unknown as { __longTasks: number[] };
      w.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) w.__longTasks.push(entry.duration);
      }).observe({ type: "longtask", buffered: false });
    });
    measuring = true;
    const started = Date.now();
    await page.getByTestId("composer-input").fill("Now the long one, please.");
    await page.getByTestId("composer-input").press("Enter");
    // Each message has a wrapper of its own, so `:last-of-type` would match every answer: the last
    // answer is the last of all of them.
    await page.waitForFunction(
      (end) => [...document.querySelectorAll('[data-testid="message-assistant"]')].at(-1)?.textContent?.includes(end),
      END,
      { timeout: 300_000, polling: 100 },
    );
    const lastTokenMs = Date.now() - started;
    const streamMs = Math.ceil(ANSWER_TOKENS / TOKENS_PER_CHUNK) * CHUNK_DELAY_MS;
    await page
      .locator('[data-testid="message-assistant"]')
      .last()
      .and(page.locator('[data-status="complete"]'))
      .waitFor({ timeout: 60_000 });
    const tasks = await page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks);
    const total = tasks.reduce((a, b) => a + b, 0);

    console.log(
      `bench:ui — ${EARLIER_TURNS} earlier turns, a ${ANSWER_TOKENS}-token answer in ${TOKENS_PER_CHUNK}-token chunks every ${CHUNK_DELAY_MS} ms`,
    );
    console.log(
      `  first-load JS of /c/<id>: ${fmt(js.transfer / 1024)} KB transferred (${fmt(js.decoded / 1024)} KB decoded, ${js.files} files)`,
    );
    console.log(
      `  time to the last token on screen: ${fmt(lastTokenMs / 1000, 2)} s (the model took ≥ ${fmt(streamMs / 1000, 2)} s to send it)`,
    );
    console.log(
      `  long tasks during the stream: ${tasks.length}, total ${fmt(total, 0)} ms, longest ${fmt(Math.max(0, ...tasks), 0)} ms`,
    );
  } finally {
    await browser.close();
    await server.stop();
    await fake.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
