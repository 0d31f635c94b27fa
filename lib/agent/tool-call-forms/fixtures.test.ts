import { describe, expect, it } from "vitest";
import { loadModelOutputs, replay, verdict } from "@/tests/support/model-outputs";

/**
 * Every real model output kept in tests/fixtures/model-outputs, replayed through the engine with a
 * scripted model: it ends in the call (or the answer) the model meant, and no markup is shown.
 */
const families = loadModelOutputs();

describe.each(families)("model outputs: $file", ({ samples }) => {
  it.each(samples)("$id ($model) ends in what the model meant, with no markup on screen", async (sample) => {
    expect(sample.source).toMatch(/^https:\/\/github\.com\//);
    expect(verdict(sample, await replay(sample))).toBeNull();
  });
});

describe("the fixtures", () => {
  it("name their public source and model, and cover every family the registry knows", async () => {
    const { TOOL_CALL_FORMS } = await import("./registry");
    const covered = new Set(families.map((family) => family.family));
    for (const form of TOOL_CALL_FORMS) expect(covered, form.family).toContain(form.family);
    for (const sample of families.flatMap((family) => family.samples)) {
      expect(sample.model.trim(), sample.id).not.toBe("");
      expect(sample.raw !== "" || sample.structured !== undefined, sample.id).toBe(true);
    }
  });
});
