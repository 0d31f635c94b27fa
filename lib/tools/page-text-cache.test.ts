import { describe, expect, it } from "vitest";
import { PageTextCache } from "./page-text-cache";

const page = (text: string) => ({ title: "t", text });

describe("page text cache", () => {
  it("keeps a page for the token's lifetime from its fetch, then forgets it", () => {
    let now = 0;
    const cache = new PageTextCache({ entries: 4, bytes: 1000, ttlSeconds: 1800 }, () => now);
    cache.set("https://a.example/", page("a"));
    now = 1_799_000;
    expect(cache.get("https://a.example/")?.text).toBe("a");
    now = 1_800_000;
    expect(cache.get("https://a.example/")).toBeNull();
    expect(cache.size).toBe(0);
  });

  it("is bounded by entries: the least recently read goes first", () => {
    const cache = new PageTextCache({ entries: 2, bytes: 1000, ttlSeconds: 60 });
    cache.set("a", page("a"));
    cache.set("b", page("b"));
    cache.get("a");
    cache.set("c", page("c"));
    expect([cache.get("a")?.text, cache.get("b"), cache.get("c")?.text]).toEqual(["a", null, "c"]);
  });

  it("is bounded by size: older pages go to make room, and a page larger than the whole cache is not kept", () => {
    const cache = new PageTextCache({ entries: 10, bytes: 20, ttlSeconds: 60 }); // 10 UTF-16 characters
    cache.set("a", page("aaaa"));
    cache.set("b", page("bbbb"));
    cache.set("c", page("cccc"));
    expect([cache.get("a"), cache.get("b")?.text, cache.get("c")?.text]).toEqual([null, "bbbb", "cccc"]);
    cache.set("huge", page("x".repeat(11)));
    expect(cache.get("huge")).toBeNull();
    expect(cache.size).toBe(2);
  });

  it("a page stored again replaces the old text", () => {
    const cache = new PageTextCache({ entries: 2, bytes: 100, ttlSeconds: 60 });
    cache.set("a", page("old"));
    cache.set("a", page("new"));
    expect(cache.get("a")?.text).toBe("new");
    expect(cache.size).toBe(1);
  });

  it("without an entry bound or a lifetime (attached files' text, kept by content) only the size bounds it", () => {
    let now = 0;
    const cache = new PageTextCache({ bytes: 20 }, () => now);
    for (const key of ["a", "b", "c", "d", "e"]) cache.set(key, page(key.repeat(2)));
    now = Number.MAX_SAFE_INTEGER;
    expect(["a", "b", "c", "d", "e"].map((key) => cache.get(key)?.text)).toEqual(["aa", "bb", "cc", "dd", "ee"]);
    cache.set("f", page("ff"));
    expect([cache.get("a"), cache.size]).toEqual([null, 5]);
  });
});
