import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { renderHtml } from "@/tests/support/render-html";
import { ConfirmDialog } from "./confirm-dialog";

const props = {
  title: "Remove bob",
  text: "Remove bob and all their conversations and files? This cannot be undone.",
  cancelLabel: "Cancel",
  confirmLabel: "Remove",
  confirmTestId: "user-remove-confirm",
  onClose: () => {},
  onConfirm: async () => null,
};

describe("a confirmation in place", () => {
  it("is an alert dialog named by its title and described by its text, Cancel before the red button", () => {
    const html = renderHtml(createElement(ConfirmDialog, { ...props, inline: true, open: true }));
    expect(html).toMatch(/<div role="alertdialog" aria-label="Remove bob" aria-describedby="([^"]+)"/);
    const describedBy = /aria-describedby="([^"]+)"/.exec(html)?.[1];
    expect(html).toContain(`<p id="${describedBy}"`);
    expect(html).toContain(props.text);
    expect(html.indexOf(">Cancel<")).toBeLessThan(html.indexOf('data-testid="user-remove-confirm"'));
  });

  it("is not there while it is not asked", () => {
    expect(renderHtml(createElement(ConfirmDialog, { ...props, inline: true, open: false }))).toBe("");
  });
});

describe("a confirmation in a modal dialog", () => {
  it("is a dialog element named by its heading and described by its text, drawn only while open", () => {
    const open = renderHtml(createElement(ConfirmDialog, { ...props, open: true, testId: "delete-dialog" }));
    const labelledBy = /<dialog[^>]*aria-labelledby="([^"]+)"/.exec(open)?.[1];
    expect(open).toContain(`<h2 id="${labelledBy}"`);
    expect(open).toContain(props.text);
    const closed = renderHtml(createElement(ConfirmDialog, { ...props, open: false, testId: "delete-dialog" }));
    expect(closed).toMatch(/<dialog[^>]*data-testid="delete-dialog"[^>]*><\/dialog>/);
  });
});
