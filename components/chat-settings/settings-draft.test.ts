import { describe, expect, it } from "vitest";
import { fromDraft, settingsOutsideDialog, toDraft } from "./settings-draft";

describe("the settings form's draft", () => {
  it("round-trips settings, and leaves empty fields out (the defaults)", () => {
    const settings = { instructions: "Be brief.", temperature: 0.7, topP: 0.9, seed: 0, numCtx: 4096, think: false };
    expect(fromDraft(toDraft(settings))).toEqual(settings);
    expect(fromDraft(toDraft({}))).toEqual({});
    expect(toDraft({}).think).toBe("default");
  });

  it("sends what is not a number as typed, so the server names the field it refuses", () => {
    expect(fromDraft({ ...toDraft({}), temperature: "warm", seed: " 12 " })).toEqual({ temperature: "warm", seed: 12 });
  });

  it("leaves out instructions of only spaces", () => {
    expect(fromDraft({ ...toDraft({}), instructions: "  \n " })).toEqual({});
  });
});

describe("settings the dialog does not edit", () => {
  it("are kept when the dialog saves: research auto-start and the widened file search", () => {
    expect(
      settingsOutsideDialog({ instructions: "x", temperature: 1, researchAutoStart: true, searchAllFiles: true }),
    ).toEqual({
      researchAutoStart: true,
      searchAllFiles: true,
    });
    expect(settingsOutsideDialog({ instructions: "x" })).toEqual({});
  });
});
