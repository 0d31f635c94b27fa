import { describe, expect, it } from "vitest";
import { cacheKeys, conversationPageKey } from "./cache-keys";

describe("cache keys", () => {
  it("reads the sidebar list page by page: the first page has no cursor, each next one starts at the previous page's cursor", () => {
    const key = conversationPageKey("");
    expect(key(0, null)).toEqual(["/api/conversations", "", null]);
    expect(key(1, { nextCursor: "c1" })).toEqual(["/api/conversations", "", "c1"]);
    expect(key(2, { nextCursor: "c2" })).toEqual(["/api/conversations", "", "c2"]);
  });

  it("stops paging after a page without a next cursor", () => {
    expect(conversationPageKey("")(1, { nextCursor: null })).toBeNull();
  });

  it("keeps each search's pages apart from the unfiltered list", () => {
    expect(conversationPageKey("pasta")(0, null)).toEqual(["/api/conversations", "pasta", null]);
    expect(conversationPageKey("pasta")(0, null)).not.toEqual(conversationPageKey("")(0, null));
  });

  it("gives each conversation its own key, its id encoded as in the API path", () => {
    expect(cacheKeys.conversation("a/b")).toBe("/api/conversations/a%2Fb");
    expect(cacheKeys.conversation("a")).not.toBe(cacheKeys.conversation("b"));
  });
});
