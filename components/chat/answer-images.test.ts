import { describe, expect, it } from "vitest";
import { answerImage } from "./answer-images";

const ORIGIN = "http://127.0.0.1:3100";
const FILE = "/api/conversations/1b2c/files/9f8e";

describe("answerImage", () => {
  it.each([
    ["a relative file URL", FILE, FILE],
    ["an absolute file URL of this origin", `${ORIGIN}${FILE}`, FILE],
    ["a data: image", "data:image/png;base64,iVBORw0KGgo=", "data:image/png;base64,iVBORw0KGgo="],
  ])("draws this app's own files and inline data: %s", (_what, src, drawn) => {
    expect(answerImage(src, ORIGIN)).toEqual({ kind: "inline", src: drawn });
  });

  it.each([
    ["a remote image", "http://127.0.0.1:9/leak?d=secret", "http://127.0.0.1:9/leak?d=secret"],
    ["an https image", "https://example.org/cat.png", "https://example.org/cat.png"],
    ["a file path on another origin", `http://evil.example${FILE}`, `http://evil.example${FILE}`],
    ["a protocol-relative URL", `//evil.example${FILE}`, `http://evil.example${FILE}`],
    ["a backslash host", `/\\evil.example${FILE}`, `http://evil.example${FILE}`],
    ["another path of this origin", "/api/auth/logout", `${ORIGIN}/api/auth/logout`],
  ])("never draws a web image from elsewhere, it becomes a link showing the URL: %s", (_what, src, href) => {
    expect(answerImage(src, ORIGIN)).toEqual({ kind: "link", href });
  });

  it.each([
    ["javascript:", "javascript:alert(1)"],
    ["an empty address", ""],
    ["no address", undefined],
    ["a non-image data: URL", "data:text/html,<script>alert(1)</script>"],
  ])("shows only the description for an address that is not a web image: %s", (_what, src) => {
    expect(answerImage(src, ORIGIN)).toEqual({ kind: "text" });
  });

  it("outside a browser only relative file URLs count as this app's", () => {
    expect(answerImage(FILE, null)).toEqual({ kind: "inline", src: FILE });
    expect(answerImage(`${ORIGIN}${FILE}`, null)).toEqual({ kind: "link", href: `${ORIGIN}${FILE}` });
  });
});
