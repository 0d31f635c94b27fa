import { describe, expect, it } from "vitest";
import { renderObservation } from "@/lib/tools/outcome";
import { resultOutcome } from "./result";

const limits = { maxArtifactBytes: 1000 };
const png = Buffer.from("\x89PNG fake image bytes").toString("base64");

describe("resultOutcome", () => {
  it("joins text blocks as the observation", () => {
    expect(
      resultOutcome(
        "s__t",
        {
          content: [
            { type: "text", text: "one" },
            { type: "text", text: "two" },
          ],
        },
        limits,
      ),
    ).toEqual({ ok: true, output: "one\n\ntwo" });
  });

  it("isError is a tool_failed error with the server's text, or a sentence when it gave none", () => {
    const failed = resultOutcome("s__t", { isError: true, content: [{ type: "text", text: "rate limited" }] }, limits);
    expect(failed).toEqual({ ok: false, error: { kind: "tool_failed", message: "s__t failed: rate limited" } });
    expect(renderObservation(failed)).toBe("s__t failed: rate limited");
    expect(renderObservation(resultOutcome("s__t", { isError: true, content: [] }, limits))).toBe(
      "s__t failed: the server reported an error without a message.",
    );
  });

  it("an image is the artifact, the text stays the output; a second artifact is only named", () => {
    const outcome = resultOutcome(
      "s__draw",
      {
        content: [
          { type: "image", data: png, mimeType: "image/png" },
          { type: "text", text: "Drawn." },
          { type: "image", data: png, mimeType: "image/jpeg" },
        ],
      },
      limits,
    );
    expect(outcome).toEqual({
      ok: true,
      output: "Drawn.\n\n[Also generated: s__draw.jpg (image/jpeg), not shown]",
      artifact: { filename: "s__draw.png", mimeType: "image/png", content: png },
    });
  });

  it("an image over MCP_MAX_ARTIFACT_MB, or of a type the UI does not show, is named instead", () => {
    const big = Buffer.alloc(2000).toString("base64");
    expect(resultOutcome("s__t", { content: [{ type: "image", data: big, mimeType: "image/png" }] }, limits)).toEqual({
      ok: true,
      output: "[s__t.png (image/png) omitted: larger than 1000 bytes]",
    });
    expect(
      resultOutcome("s__t", { content: [{ type: "image", data: png, mimeType: "image/svg+xml" }] }, limits),
    ).toEqual({ ok: true, output: "[Image (image/svg+xml) omitted: not a type the UI shows]" });
  });

  it("embedded HTML and Markdown are artifacts; other text resources are text; blobs are named", () => {
    const html = resultOutcome(
      "s__t",
      {
        content: [
          {
            type: "resource",
            resource: { uri: "ui://a/b/chart%20one.html", mimeType: "text/html; charset=utf-8", text: "<p>x</p>" },
          },
        ],
      },
      limits,
    );
    expect(html).toEqual({
      ok: true,
      output: "",
      artifact: { filename: "chart_one.html", mimeType: "text/html", content: "<p>x</p>" },
    });
    const others = resultOutcome(
      "s__t",
      {
        content: [
          { type: "resource", resource: { uri: "file:///notes", mimeType: "text/markdown", text: "# N" } },
          { type: "resource", resource: { uri: "file:///a.csv", mimeType: "text/csv", text: "a,b" } },
          { type: "resource", resource: { uri: "file:///a.zip", mimeType: "application/zip", blob: "UEs=" } },
          { type: "resource_link", uri: "file:///big.log", name: "big.log" },
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        ],
      },
      limits,
    );
    expect(others).toEqual({
      ok: true,
      output: [
        "a,b",
        "[Binary resource file:///a.zip (application/zip) omitted]",
        "[Resource: big.log <file:///big.log>]",
        "[Audio (audio/wav) omitted]",
      ].join("\n\n"),
      artifact: { filename: "s__t.md", mimeType: "text/markdown", content: "# N" },
    });
  });

  it("structured content alone is read as JSON", () => {
    expect(resultOutcome("s__t", { content: [], structuredContent: { temp: 21 } }, limits)).toEqual({
      ok: true,
      output: '{"temp":21}',
    });
  });
});
