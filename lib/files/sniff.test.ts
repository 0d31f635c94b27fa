import { describe, expect, it } from "vitest";
import { contentDisposition, safeFilename } from "./sniff";

describe("safeFilename", () => {
  it.each([
    ["an override", "report\u202Efdp.exe", "report_fdp.pdf"],
    ["an isolate", "a\u2067b\u2069.pdf", "a_b_.pdf"],
    ["the directional marks", "x\u200Ey\u200Fz\u061C.pdf", "x_y_z_.pdf"],
  ])("leaves no bidi control in a name: %s", (_what, name, expected) => {
    expect(safeFilename(name, "pdf")).toBe(expected);
  });
});

describe("contentDisposition", () => {
  it("never names a download with a bidi control, even for a name stored before names were cleaned", () => {
    const header = contentDisposition("invoice\u202Efdp.exe");
    expect(header).toBe(`attachment; filename="invoicefdp.exe"; filename*=UTF-8''invoicefdp.exe`);
  });
});
