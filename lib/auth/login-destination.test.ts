import { describe, expect, it } from "vitest";
import { loginDestination } from "./login-destination";

const ORIGIN = "https://chat.example.org";

describe("post-login destination", () => {
  it.each([
    ["/", "/"],
    ["/c/abc", "/c/abc"],
    ["/c/abc?q=a%20b#end", "/c/abc?q=a%20b#end"],
    ["/settings", "/settings"],
    ["/admin?tab=users", "/admin?tab=users"],
  ])("keeps a path of this app: %s", (next, expected) => {
    expect(loginDestination(next, ORIGIN)).toBe(expected);
  });

  it.each([
    // other hosts, spelled as paths
    "//evil.example",
    "///evil.example",
    "/\\evil.example",
    "/\\/evil.example",
    "\\\\evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\n/evil.example",
    "\t//evil.example",
    " //evil.example",
    // absolute URLs and other schemes
    "https://evil.example/",
    "http:evil.example",
    "https://chat.example.org.evil.example/",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    " javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "evil.example",
    // encoded variants
    "%2F%2Fevil.example",
    "/%2F/evil.example",
    "/%2Fevil.example",
    "/%5Cevil.example",
    "/%5C%5Cevil.example",
    "/%09/evil.example",
    "/%252F%252Fevil.example",
    "%2F%5Cevil.example",
    "javascript%3Aalert(1)",
    "/%E0%A4%A",
    // the sign-in page itself (a loop)
    "/login",
    "/login?next=/",
    "/login/",
    // nothing
    "",
  ])("sends %j to /", (next) => {
    expect(loginDestination(next, ORIGIN)).toBe("/");
  });

  it("says / for a missing value", () => {
    expect(loginDestination(null, ORIGIN)).toBe("/");
    expect(loginDestination(undefined, ORIGIN)).toBe("/");
  });

  it("answers with the parsed path, not the raw text it was given", () => {
    expect(loginDestination("/c/../settings", ORIGIN)).toBe("/settings");
    expect(loginDestination("/c/a b", ORIGIN)).toBe("/c/a%20b");
  });
});
