import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { renderHtml } from "@/tests/support/render-html";
import { ThinkingBlock } from "./thinking-block";

const render = (props: { text: string; live?: boolean; durationMs?: number | null }) =>
  renderHtml(createElement(ThinkingBlock, props));

describe("the thinking block", () => {
  it("says Thinking… with the latest line while the thinking grows", () => {
    const html = render({ text: "First step.\nSecond step", live: true });
    expect(html).toContain("Thinking…");
    expect(html).toContain("Second step");
    expect(html).toContain('data-live="true"');
  });

  it("says Thought for N s once done", () => {
    const html = render({ text: "Done thinking.", durationMs: 2400 });
    expect(html).toContain("Thought for 2 s");
    expect(html).not.toContain("Thinking…");
  });

  it("says Thought for a stored thinking that gave no duration", () => {
    expect(render({ text: "Old run." })).toContain("Thought<");
  });
});
