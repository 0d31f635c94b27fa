import { createElement } from "react";
import { SWRConfig } from "swr";
import { describe, expect, it } from "vitest";
import { cacheKeys } from "@/lib/client/cache-keys";
import type { Me } from "@/lib/client/types";
import { renderHtml } from "@/tests/support/render-html";
import { LoginView } from "./login-view";

function loginHtml(me: Me, locale: "en" | "ja" = "en"): string {
  const view = createElement(LoginView);
  return renderHtml(createElement(SWRConfig, { value: { fallback: { [cacheKeys.me]: me } } }, view), locale);
}

const fresh: Me = { accountsRequired: true, user: null, signupOpen: true, firstUser: true, setupTokenRequired: true };

describe("the sign-in page's setup token field", () => {
  it("asks for the setup token of the server log when the first account needs it, in both languages", () => {
    expect(loginHtml(fresh)).toContain('data-testid="login-setup-token"');
    expect(loginHtml(fresh)).toContain("Setup token");
    expect(loginHtml(fresh)).toContain("the line beginning with [setup]");
    expect(loginHtml(fresh, "ja")).toContain("セットアップトークン");
  });

  it("shows no token field once an account exists", () => {
    const later: Me = { ...fresh, signupOpen: true, firstUser: false, setupTokenRequired: false };
    expect(loginHtml(later)).not.toContain("login-setup-token");
  });
});
