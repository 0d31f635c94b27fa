import { createHash } from "node:crypto";
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { THEME_SCRIPT } from "@/components/preferences/theme-script";
import { proxy } from "@/proxy";

function pagePolicy() {
  const response = proxy(new NextRequest("http://127.0.0.1:3000/c/some-conversation"));
  const policy = response.headers.get("content-security-policy") ?? "";
  const directives = new Map(
    policy.split(";").map((directive) => {
      const [name = "", ...values] = directive.trim().split(/\s+/);
      return [name, values] as const;
    }),
  );
  return { response, policy, directives };
}

describe("page Content-Security-Policy (proxy.ts)", () => {
  it("every page response carries a policy with a fresh nonce, which Next.js also reads from the request", () => {
    const first = pagePolicy();
    const second = pagePolicy();
    const nonceOf = (p: typeof first) => p.directives.get("script-src")?.find((s) => s.startsWith("'nonce-"));
    expect(nonceOf(first)).toMatch(/^'nonce-[A-Za-z0-9+/]{22}=='$/);
    expect(nonceOf(first)).not.toBe(nonceOf(second));
    // NextResponse.next({ request: { headers } }) hands the request's new headers to the renderer this way.
    expect(first.response.headers.get("x-middleware-request-content-security-policy")).toBe(first.policy);
  });

  it("no image, font, fetch, frame or form reaches another host", () => {
    const { policy, directives } = pagePolicy();
    expect(directives.get("default-src")).toEqual(["'self'"]);
    expect(directives.get("img-src")).toEqual(["'self'", "data:", "blob:"]);
    expect(directives.get("connect-src")).toEqual(["'self'"]);
    expect(directives.get("font-src")).toEqual(["'self'", "data:"]);
    expect(directives.get("form-action")).toEqual(["'self'"]);
    expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
    expect(directives.get("object-src")).toEqual(["'none'"]);
    expect(policy).not.toMatch(/https?:|\*/);
  });

  it("only scripts with the nonce or a known hash run, never eval, and the theme script is allowed by its hash", () => {
    const scripts = pagePolicy().directives.get("script-src") ?? [];
    expect(scripts).not.toContain("'unsafe-inline'");
    expect(scripts).not.toContain("'unsafe-eval'");
    const themeHash = createHash("sha256").update(THEME_SCRIPT).digest("base64");
    expect(scripts).toContain(`'sha256-${themeHash}'`);
  });
});
