import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { extractHtmlText } from "./html-text";

/** Real pages shipped by Debian (tests/fixtures/dense/README.md). */
const realPage = (name: string) =>
  extractHtmlText(fs.readFileSync(path.join(__dirname, "..", "..", "tests", "fixtures", "dense", name), "utf8"));

const text = (body: string) => extractHtmlText(`<html><body>${body}</body></html>`).text;

describe("main content", () => {
  it("removes script, style, noscript, template, head, forms' controls and hidden elements", () => {
    const { text, title } = extractHtmlText(`<html><head><title>T</title><style>.x{}</style></head><body>
      <script>alert(1)</script><noscript>Enable JS</noscript><template>tpl</template><button>Copy</button>
      <p>Kept paragraph</p><div hidden>secret</div><span aria-hidden="true">icon</span></body></html>`);
    expect(title).toBe("T");
    expect(text).toBe("Kept paragraph");
  });

  it("prefers <main> or role=main, then a single <article>, then the body", () => {
    expect(text("<p>outside</p><main><h1>Title</h1><article><p>article</p></article></main>")).toBe(
      "# Title\n\narticle",
    );
    expect(text('<p>outside</p><div role="main"><p>in main</p></div>')).toBe("in main");
    expect(text("<p>outside</p><article><p>the one article</p></article>")).toBe("the one article");
    expect(text("<p>intro</p><article><p>one</p></article><article><p>two</p></article>")).toBe("intro\n\none\n\ntwo");
    expect(text("<p>only body</p>")).toBe("only body");
  });
});

describe("a page is never read as empty while it has text", () => {
  it("when the main content has no text, the body is read", () => {
    expect(text('<main><div id="app"></div></main><div class="content"><p>Served without a script.</p></div>')).toBe(
      "Served without a script.",
    );
    expect(text("<p>outside</p><article><p> </p></article>")).toBe("outside");
  });

  it("a page made of links is read with its links: a generated API index (Node.js)", () => {
    const { text } = realPage("nodejs-api-index.html");
    expect(text).toContain("Assertion testing");
    expect(text).toContain("Worker threads");
    expect(text).not.toContain("Toggle dark mode");
  });

  it("a texinfo node whose chapter is mostly its menu keeps its heading, sentence and menu (texi2any)", () => {
    const { text } = realPage("texinfo-insertions.html");
    expect(text).toContain("11 Special Insertions");
    expect(text).toContain("Texinfo provides several commands for inserting characters");
    expect(text).toContain("Inserting Quote Characters");
  });

  it("text after </body></html> is read, as browsers show it", () => {
    const page =
      '<html><head><title>T</title></head><body>\n</body></html>\n<p>Written after the end.</p><a href="/x">x</a>';
    expect(extractHtmlText(page).text).toBe("Written after the end.\n\nx");
  });

  it("link-dense blocks still go when the page has other text", () => {
    expect(text('<ul><li><a href="/a">Home</a></li><li><a href="/b">About</a></li></ul><p>The article.</p>')).toBe(
      "The article.",
    );
  });
});

describe("boilerplate removal", () => {
  it("removes the navigation, banner, contentinfo, complementary and search landmarks given by role", () => {
    expect(
      text(`<div role="banner">Site name</div><div role="search"><label>Search the docs</label></div>
        <div role="navigation">Guides Reference</div><p>Content.</p><div role="complementary">Related reading</div>
        <div role="contentinfo">© 2026 Example</div>`),
    ).toBe("Content.");
  });

  it("removes the page's nav, header, footer and aside, but keeps an article's own header, footer and aside", () => {
    expect(
      text(`<header>Site header</header><nav>Menu</nav><aside>Sidebar</aside>
        <article><header><h1>Article title</h1><p>By Ada, 1 May</p></header><p>Body.</p>
        <aside>A note in the article.</aside><footer>Filed under: notes</footer></article>
        <footer>Site footer</footer>`),
    ).toBe("# Article title\n\nBy Ada, 1 May\n\nBody.\n\nA note in the article.\n\nFiled under: notes");
    expect(text("<main><header><h1>Main's own title</h1></header><p>Body.</p><nav>In-page menu</nav></main>")).toBe(
      "# Main's own title\n\nBody.",
    );
  });

  it("removes blocks made mostly of links (menus, breadcrumbs, tables of contents) and keeps prose with links", () => {
    expect(
      text(`<ol class="breadcrumb"><li><a href="/">ホーム</a></li><li><a href="/docs">ドキュメント</a></li><li>設定</li></ol>
        <div class="sidebar"><div class="group"><a href="/a">はじめに</a> <a href="/b">インストール</a> <a href="/c">設定</a></div></div>
        <p>設定ファイルは <a href="/ref">リファレンス</a> に説明があります。起動時に一度だけ読み込まれます。</p>
        <div class="toc"><p>目次</p><ul><li><a href="#a">概要</a></li><li><a href="#b">詳細な設定項目</a></li></ul></div>
        <div class="pager"><a href="/prev">← 前へ: インストール</a><a href="/next">次へ: 運用 →</a></div>`),
    ).toBe("設定ファイルは リファレンス に説明があります。起動時に一度だけ読み込まれます。");
  });

  it("does not count a heading's own link as link text, and drops permalink marks", () => {
    expect(
      text(`<section><h2><a href="#install">A rather long section heading</a></h2><p>Short.</p></section>
        <h3 id="x">Options<a class="headerlink" href="#x">¶</a></h3>`),
    ).toBe("## A rather long section heading\n\nShort.\n\n### Options");
  });
});

describe("structure as light Markdown", () => {
  it("paragraphs are separated by a blank line, whitespace collapses, <br> breaks a line", () => {
    expect(text("<h1>Heading</h1>\n\n  <p>First   <b>bold</b>\n line</p><div><br><br></div><p>a<br>b</p>")).toBe(
      "# Heading\n\nFirst bold line\n\na\nb",
    );
  });

  it("headings become # to ######", () => {
    expect(text("<h1>一</h1><h2>二</h2><h3>三</h3><h4>四</h4><h5>五</h5><h6>六</h6>")).toBe(
      "# 一\n\n## 二\n\n### 三\n\n#### 四\n\n##### 五\n\n###### 六",
    );
  });

  it("list items become - and 1., numbering from an ol's start and an li's value, nested lists indented", () => {
    expect(
      text(`<ul><li>りんご</li><li>みかん<ul><li>温州</li></ul></li></ul>
        <ol start="3"><li>三番目</li><li>四番目<ol><li>入れ子</li></ol></li><li value="10">十番目</li><li>十一番目</li></ol>`),
    ).toBe("- りんご\n- みかん\n  - 温州\n\n3. 三番目\n4. 四番目\n   1. 入れ子\n10. 十番目\n11. 十一番目");
  });

  it("tables become | a | b | rows with a separator under the header row", () => {
    expect(
      text(`<table><caption>設定項目</caption><thead><tr><th>名前</th><th>既定値</th></tr></thead>
        <tbody><tr><td>timeout</td><td>30 <code>s</code></td></tr><tr><td>a|b</td></tr></tbody></table>
        <table><tr><td>no</td><td>header</td></tr></table>`),
    ).toBe("設定項目\n| 名前 | 既定値 |\n| --- | --- |\n| timeout | 30 `s` |\n| a\\|b | |\n\n| no | header |");
  });

  it("<pre> becomes a fenced code block with its indentation and blank lines intact", () => {
    const code = 'def main():\n    x = 1\n\n\n    if x:\n        print("日本語")\n';
    expect(text(`<p>例:</p><pre><code class="language-python">${code}</code></pre><p>以上。</p>`)).toBe(
      `例:\n\n\`\`\`python\n${code.trimEnd()}\n\`\`\`\n\n以上。`,
    );
    expect(text("<pre>```\ninner fence\n```</pre>")).toBe("````\n```\ninner fence\n```\n````");
  });

  it("inline code goes in backticks", () => {
    expect(text("<p>Run <code>npm  install</code> or <code>a`b</code>.</p>")).toBe("Run `npm install` or `` a`b ``.");
  });

  it("reads a page nested deeper than any real one, as plain text below the depth limit", () => {
    const depth = 12_000;
    expect(text(`${"<div>".repeat(depth)}<p>深い</p>${"</div>".repeat(depth)}`)).toBe("深い");
  });

  it("keeps Japanese ideographic spaces, which are text, not layout", () => {
    expect(text("<p>　第一章　羅生門</p>")).toBe("　第一章　羅生門");
  });
});
