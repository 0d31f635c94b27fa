import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { InvalidTokenError, makeToken, parseToken, signToken } from "./pagination";

const secret = randomBytes(32);
const options = { tool: "scrape_url", required: ["url", "offset"], secret, ttlSeconds: 1800 };
const now = 1_800_000_000_000;

function reasonOf(token: string, overrides: Partial<typeof options> & { now?: number } = {}): string {
  try {
    parseToken(token, { ...options, now, ...overrides });
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect((error as Error).message.startsWith("Invalid continuation token: ")).toBe(true);
    return (error as Error).message;
  }
  throw new Error("token was accepted");
}

describe("continuation tokens", () => {
  const good = makeToken({ tool: "scrape_url", url: "https://example.com/ページ", offset: 4000 }, secret, now);

  it("round-trips the cursor, with version and issue time", () => {
    expect(parseToken(good, { ...options, now })).toMatchObject({
      v: 2,
      tool: "scrape_url",
      url: "https://example.com/ページ",
      offset: 4000,
      iat: now / 1000,
    });
  });

  it("is base64url of ASCII-only JSON, even for non-ASCII URLs", () => {
    expect(good).toMatch(/^[A-Za-z0-9_-]+$/);
    const json = Buffer.from(good, "base64url").toString("utf8");
    expect(json).toMatch(/^[\x20-\x7e]+$/);
    expect(JSON.parse(json)).toHaveProperty("mac");
  });

  it("rejects a forged token signed with another secret", () => {
    const forged = makeToken({ tool: "scrape_url", url: "https://example.com", offset: 0 }, randomBytes(32), now);
    expect(reasonOf(forged)).toContain("signature mismatch");
  });

  it("rejects a token whose cursor was tampered with", () => {
    const payload = JSON.parse(Buffer.from(good, "base64url").toString("utf8"));
    payload.offset = 0;
    expect(reasonOf(Buffer.from(JSON.stringify(payload)).toString("base64url"))).toContain("signature mismatch");
  });

  it("rejects a token whose MAC was removed", () => {
    const { mac: _mac, ...payload } = JSON.parse(Buffer.from(good, "base64url").toString("utf8"));
    expect(reasonOf(Buffer.from(JSON.stringify(payload)).toString("base64url"))).toContain("missing signature");
  });

  it.each([1, 5, 20, good.length - 1])("rejects a token truncated to %i characters", (length) => {
    reasonOf(good.slice(0, length));
  });

  it("rejects an expired token and accepts one just inside the TTL", () => {
    expect(reasonOf(good, { now: now + 1801_000 })).toContain("expired");
    expect(() => parseToken(good, { ...options, now: now + 1799_000 })).not.toThrow();
  });

  it("rejects a token issued in the future", () => {
    const future = makeToken({ tool: "scrape_url", url: "https://e.com", offset: 1 }, secret, now + 3_600_000);
    expect(reasonOf(future)).toContain("future");
  });

  it("rejects a token of another tool", () => {
    const other = makeToken(
      { tool: "pdf_to_text", url: "https://e.com/a.pdf", page_index: 1, page_char_offset: 0 },
      secret,
      now,
    );
    expect(reasonOf(other)).toContain("belongs to pdf_to_text");
  });

  it("rejects a well-signed token of another version", () => {
    const old = signToken({ v: 1, tool: "scrape_url", url: "https://e.com", offset: 1, iat: now / 1000 }, secret);
    expect(reasonOf(old)).toContain("unsupported version 1");
  });

  it("rejects a well-signed token missing a required field", () => {
    const missing = makeToken({ tool: "scrape_url", url: "https://e.com" }, secret, now);
    expect(reasonOf(missing)).toContain("missing field offset");
  });

  it.each(["", "   ", "not a token!", "e30", "W10"])("rejects garbage %j", (token) => {
    reasonOf(token);
  });
});
