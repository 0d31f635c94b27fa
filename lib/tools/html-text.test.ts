import { describe, expect, it } from "vitest";
import { extractHtmlText } from "./html-text";

describe("scrape_url text extraction", () => {
  it("removes script, style, noscript, template, head, nav, footer and aside", () => {
    const { text } = extractHtmlText(`<html><head><title>T</title><style>.x{}</style></head><body>
      <nav>Menu</nav><script>alert(1)</script><noscript>Enable JS</noscript><template>tpl</template>
      <p>Kept paragraph</p><aside>Side</aside><footer>Foot</footer></body></html>`);
    expect(text).toBe("Kept paragraph");
  });

  it("prefers article over main over body", () => {
    expect(
      extractHtmlText("<body><p>outside</p><main><p>main</p><article><p>article</p></article></main></body>").text,
    ).toBe("article");
    expect(extractHtmlText("<body><p>outside</p><main><p>in main</p></main></body>").text).toBe("in main");
    expect(extractHtmlText("<body><p>only body</p></body>").text).toBe("only body");
  });

  it("puts block elements on their own lines and collapses blank lines and spaces", () => {
    const { text, title } = extractHtmlText(`<title> A   title </title><body><h1>Heading</h1>

      <p>First   <b>bold</b> line</p><div><br><br></div><ul><li>one</li><li>two</li></ul>
      <table><tr><td>a</td><td>b</td></tr></table></body>`);
    expect(title).toBe("A title");
    expect(text).toBe("Heading\nFirst bold line\none\ntwo\na\nb");
  });

  it("keeps the lines of preformatted text", () => {
    expect(extractHtmlText("<body><pre>line 1\nline 2</pre></body>").text).toBe("line 1\nline 2");
  });
});
