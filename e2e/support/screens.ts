import type { Page } from "@playwright/test";
import type { ChatPage } from "../pages/chat-page";
import { fakeOllama } from "./fake-ollama";

const VARIANTS = [
  { scheme: "light", viewport: { width: 1280, height: 800 } },
  { scheme: "dark", viewport: { width: 1280, height: 800 } },
  { scheme: "light", viewport: { width: 390, height: 844 } },
] as const;

/**
 * Saves the page light and wide, dark and wide, light and narrow (`prepare` runs in each first:
 * scroll something into view, open the drawer), then puts the page back to light and wide.
 */
export async function screenshotVariants(
  page: Page,
  chat: ChatPage,
  name: string,
  prepare?: () => Promise<void>,
): Promise<void> {
  for (const variant of VARIANTS) {
    await page.emulateMedia({ colorScheme: variant.scheme });
    await page.setViewportSize(variant.viewport);
    await prepare?.();
    await chat.screenshot(name);
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize(VARIANTS[0].viewport);
}

/** The continuation token the model was given in the tool loop's last tool message. */
export async function tokenGiven(): Promise<string> {
  const requests = await fakeOllama.chatRequests();
  for (const request of requests.reverse()) {
    for (const message of request.body.messages ?? []) {
      const match = message.role === "tool" ? /continue_from="([^"]+)"/.exec(String(message.content)) : null;
      if (match?.[1]) return match[1];
    }
  }
  throw new Error("the model was given no continuation token");
}
