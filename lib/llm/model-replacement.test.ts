import { describe, expect, it } from "vitest";
import { replacementModel, sameModel } from "./model-replacement";

describe("the replacement for a model that is gone", () => {
  const installed = ["llama3.2:latest", "qwen3:4b", "gemma:2b"];

  it("is the same model under another tag first", () => {
    expect(replacementModel("qwen3:8b", installed, "gemma:2b")).toBe("qwen3:4b");
    expect(replacementModel("QWEN3", installed, "gemma:2b")).toBe("qwen3:4b");
  });

  it("is the default model when no other tag is installed, else the first installed", () => {
    expect(replacementModel("mistral:7b", installed, "gemma:2b")).toBe("gemma:2b");
    expect(replacementModel("mistral:7b", installed, "llama3.2")).toBe("llama3.2:latest");
    expect(replacementModel("mistral:7b", installed, "gone:1b")).toBe("llama3.2:latest");
    expect(replacementModel("mistral:7b", installed, null)).toBe("llama3.2:latest");
  });

  it("is null when nothing is installed", () => {
    expect(replacementModel("mistral:7b", [], "gemma:2b")).toBeNull();
  });

  it("treats a name without a tag as :latest, case-insensitively", () => {
    expect(sameModel("Llama3.2", "llama3.2:latest")).toBe(true);
    expect(sameModel("llama3.2:1b", "llama3.2:latest")).toBe(false);
  });
});
