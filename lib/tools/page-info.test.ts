import { describe, expect, it } from "vitest";
import { formatPageInfo, type PageInfo, parsePageInfo } from "./page-info";

const pdfPage: PageInfo = { nextToken: "TOKEN", sourcePages: { first: 2, last: 4, total: 30 } };

describe("the page-info footer", () => {
  it("says has_more and next_token after a blank line", () => {
    expect(formatPageInfo({ nextToken: "TOKEN" })).toBe("\n\n---page-info---\nhas_more: true\nnext_token: TOKEN");
  });

  it("names a PDF page's source pages, then the PDF keys, after next_token", () => {
    expect(formatPageInfo(pdfPage)).toBe(
      "\n\n---page-info---\nhas_more: true\nnext_token: TOKEN\nsource_pages: 2-4/30\ntoken_replaces_previous: true\nkeep_token_in_answer_if_stopped: true\nresume_with_continue_from_only: true",
    );
  });

  it("reads back what it wrote: body and page info", () => {
    for (const info of [{ nextToken: "abc_-9" }, pdfPage]) {
      expect(parsePageInfo(`body\n\nlast paragraph${formatPageInfo(info)}`)).toEqual({
        body: "body\n\nlast paragraph",
        pageInfo: info,
      });
    }
  });

  it("finds no footer in a body that mentions the marker, or in a text ending like a footer it would not write", () => {
    for (const text of [
      "see ---page-info--- inline",
      "quoted:\n\n---page-info---\nhas_more: true\nnext_token: X\nmore text the footer never has",
      "\n\n---page-info---\nhas_more: false\nnext_token: X",
      "\n\n---page-info---\nhas_more: true",
    ]) {
      expect(parsePageInfo(text)).toEqual({ body: text, pageInfo: null });
    }
  });

  it("splits at the last footer, so a page quoting an earlier page's footer keeps the quote in its body", () => {
    const quoted = `earlier:${formatPageInfo({ nextToken: "OLD" })}\nend of quote`;
    expect(parsePageInfo(`${quoted}${formatPageInfo({ nextToken: "NEW" })}`)).toEqual({
      body: quoted,
      pageInfo: { nextToken: "NEW" },
    });
  });
});
