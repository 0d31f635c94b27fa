import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { renderHtml } from "@/tests/support/render-html";
import { ArtifactPreview } from "./artifact-preview";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEUlEQVR4nGP4z8DwnwGMgRQAH+4D/dJQfRoAAAAASUVORK5CYII=";

describe("an artifact preview", () => {
  it("shows an image artifact as an <img> of its base64 data, labelled with its name", () => {
    const html = renderHtml(
      createElement(ArtifactPreview, { artifact: { filename: "chart.png", mimeType: "image/png", content: PNG } }),
    );
    expect(html).toContain(`src="data:image/png;base64,${PNG}"`);
    expect(html).toContain('alt="Preview of chart.png"');
    expect(html).not.toContain("<iframe");
  });

  it("never draws an image of a type the server does not let through (SVG is text, not previewed as an image)", () => {
    const svg = { filename: "x.svg", mimeType: "image/svg+xml", content: "<svg onload=alert(1)/>" };
    expect(renderHtml(createElement(ArtifactPreview, { artifact: svg }))).not.toContain("<img");
  });

  it("shows HTML in a frame with scripts off, not as an image", () => {
    const html = renderHtml(
      createElement(ArtifactPreview, { artifact: { filename: "r.html", mimeType: "text/html", content: "<p>x</p>" } }),
    );
    expect(html).toContain('sandbox=""');
    expect(html).not.toContain("<img");
  });
});
