import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { renderHtml } from "@/tests/support/render-html";
import { SelectField, TextAreaField, TextField } from "./text-field";

const onChange = () => {};
const attribute = (html: string, tag: string, name: string) =>
  new RegExp(`<${tag}\\b[^>]*\\s${name}="([^"]*)"`).exec(html)?.[1];

describe("a form field", () => {
  it("is named by its label: the label points at the control's id (input, text area, select)", () => {
    for (const [tag, html] of [
      ["input", renderHtml(createElement(TextField, { label: "Username", value: "", onChange }))],
      ["textarea", renderHtml(createElement(TextAreaField, { label: "Arguments", value: "", onChange }))],
      ["select", renderHtml(createElement(SelectField, { label: "Role", value: "", onChange }))],
    ] as const) {
      const id = attribute(html, tag, "id");
      expect(id).toBeTruthy();
      expect(attribute(html, "label", "for")).toBe(id);
    }
  });

  it("is described by its hint, and by what else the form says describes it", () => {
    const html = renderHtml(
      createElement(TextField, {
        label: "Password",
        hint: "At least 10 characters",
        "aria-describedby": "rules",
        value: "",
        onChange,
      }),
    );
    const described = attribute(html, "input", "aria-describedby")?.split(" ") ?? [];
    const hintId = attribute(html, "p", "id");
    expect(hintId).toBeTruthy();
    expect(described).toEqual([hintId, "rules"]);
    expect(html).toContain("At least 10 characters");
  });

  it("without a hint is described by nothing it was not given", () => {
    const html = renderHtml(createElement(TextField, { label: "Username", value: "", onChange }));
    expect(html).not.toContain("aria-describedby");
    expect(html).not.toContain("<p");
  });

  it("keeps the control's own attributes (test id, type, required) and adds the monospaced look when asked", () => {
    // Held in a variable: `data-testid` is an attribute JSX allows, not a declared prop.
    const props = { label: "Token", mono: true, type: "password", required: true, "data-testid": "login-setup-token" };
    const html = renderHtml(createElement(TextField, { ...props, value: "", onChange }));
    expect(attribute(html, "input", "data-testid")).toBe("login-setup-token");
    expect(attribute(html, "input", "type")).toBe("password");
    expect(html).toMatch(/<input\b[^>]*\srequired=""/);
    expect(attribute(html, "input", "class")).toContain("font-mono");
  });

  it("typed verbatim is not spell-checked, capitalised or autofilled, unless its autoComplete says otherwise", () => {
    const token = renderHtml(createElement(TextField, { label: "Token", verbatim: true, value: "", onChange }));
    expect(attribute(token, "input", "spellCheck")).toBe("false");
    expect(attribute(token, "input", "autoCapitalize")).toBe("none");
    expect(attribute(token, "input", "autoComplete")).toBe("off");
    const username = renderHtml(
      createElement(TextField, { label: "Username", verbatim: true, autoComplete: "username", value: "", onChange }),
    );
    expect(attribute(username, "input", "autoComplete")).toBe("username");
    const prose = renderHtml(createElement(TextField, { label: "Title", value: "", onChange }));
    expect(prose).not.toContain("spellCheck");
  });
});
