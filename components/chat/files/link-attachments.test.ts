import { describe, expect, it } from "vitest";
import { linkAttachments } from "./link-attachments";

const id = "0b8e4c8a-1f7b-4c1e-9a53-2f6f1d0c9e11";
const names = new Map([[id, "report [final].pdf"]]);

describe("linkAttachments", () => {
  it("turns a known attachment reference into a download link named after the file", () => {
    expect(linkAttachments(`See attachment:${id}, page 2.`, "c1", names)).toBe(
      `See [report \\[final\\].pdf](/api/conversations/c1/files/${id}), page 2.`,
    );
    expect(linkAttachments(`The report (attachment:${id}) says so.`, "c1", names)).toContain("([report");
  });

  it("leaves unknown ids, inline code and existing link targets as written", () => {
    const unknown = "attachment:11111111-2222-3333-4444-555555555555";
    expect(linkAttachments(`Read ${unknown}`, "c1", names)).toBe(`Read ${unknown}`);
    expect(linkAttachments(`\`attachment:${id}\``, "c1", names)).toBe(`\`attachment:${id}\``);
    expect(linkAttachments(`[x](attachment:${id})`, "c1", names)).toBe(`[x](attachment:${id})`);
  });
});
