import { describe, expect, it } from "vitest";
import { cacheKeys, conversationPageKey } from "./cache-keys";

describe("cache keys", () => {
  it("reads the sidebar list page by page: the first page has no cursor, each next one starts at the previous page's cursor", () => {
    const key = conversationPageKey("", false);
    expect(key(0, null)).toEqual(["/api/conversations", "", false, null]);
    expect(key(1, { nextCursor: "c1" })).toEqual(["/api/conversations", "", false, "c1"]);
    expect(key(2, { nextCursor: "c2" })).toEqual(["/api/conversations", "", false, "c2"]);
  });

  it("stops paging after a page without a next cursor", () => {
    expect(conversationPageKey("", false)(1, { nextCursor: null })).toBeNull();
  });

  it("keeps each search's pages apart from the unfiltered list", () => {
    expect(conversationPageKey("pasta", false)(0, null)).toEqual(["/api/conversations", "pasta", false, null]);
    expect(conversationPageKey("pasta", false)(0, null)).not.toEqual(conversationPageKey("", false)(0, null));
  });

  it("keeps the archived conversations' pages apart from the others", () => {
    expect(conversationPageKey("", true)(0, null)).not.toEqual(conversationPageKey("", false)(0, null));
    expect(conversationPageKey("", true)(1, { nextCursor: "c1" })).toEqual(["/api/conversations", "", true, "c1"]);
  });

  it("gives each conversation its own key, its id encoded as in the API path", () => {
    expect(cacheKeys.conversation("a/b")).toBe("/api/conversations/a%2Fb");
    expect(cacheKeys.conversation("a")).not.toBe(cacheKeys.conversation("b"));
  });
});
