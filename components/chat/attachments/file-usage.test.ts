import { createElement } from "react";
import { SWRConfig, unstable_serialize } from "swr";
import { describe, expect, it } from "vitest";
import { cacheKeys } from "@/lib/client/cache-keys";
import type { FileUsage } from "@/lib/files/quota";
import { renderHtml } from "@/tests/support/render-html";
import { FileUsageLine } from "./file-usage";

const MB = 1024 * 1024;

function usageHtml(usage: FileUsage, conversationId: string | null, locale: "en" | "ja" = "en"): string {
  const key = unstable_serialize([cacheKeys.fileUsage(conversationId), 1]);
  const line = createElement(FileUsageLine, { conversationId, stored: 1 });
  return renderHtml(createElement(SWRConfig, { value: { fallback: { [key]: usage } } }, line), locale);
}

describe("the file usage line under the composer's files", () => {
  const usage = { storage: { usedBytes: 512 * MB, limitBytes: 2048 * MB }, conversation: { files: 3, limit: 200 } };

  it("shows the chat's files and the user's storage against their limits, in both languages", () => {
    expect(usageHtml(usage, "c1")).toContain("3 of 200 files in this chat · 512 MB of 2.0 GB stored");
    expect(usageHtml(usage, "c1", "ja")).toContain("この会話のファイル 3 / 200 個 · 保存容量 512 MB / 2.0 GB");
  });

  it("shows only the storage before the chat exists", () => {
    expect(usageHtml({ storage: usage.storage }, null)).toContain(">512 MB of 2.0 GB stored<");
  });
});
