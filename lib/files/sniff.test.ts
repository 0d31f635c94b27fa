import { describe, expect, it } from "vitest";
import { safeFilename } from "./sniff";

describe("safeFilename", () => {
  it.each([
    ["an override", "report\u202Efdp.exe", "report_fdp.pdf"],
    ["an isolate", "a\u2067b\u2069.pdf", "a_b_.pdf"],
    ["the directional marks", "x\u200Ey\u200Fz\u061C.pdf", "x_y_z_.pdf"],
  ])("leaves no bidi control in a name: %s", (_what, name, expected) => {
    expect(safeFilename(name, "pdf")).toBe(expected);
  });
});
