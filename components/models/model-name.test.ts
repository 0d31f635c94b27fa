import { describe, expect, it } from "vitest";
import type { ModelInfo } from "@/lib/client/types";
import { groupModels, modelDisplayName, modelNameParts } from "./model-name";

const model = (name: string, label?: string): ModelInfo =>
  ({
    name,
    abilities: { tool_call: true, json_mode: true, thinking: false, vision: false },
    ...(label ? { openaiCompatible: { label, model: name.slice(0, name.lastIndexOf("@")) } } : {}),
  }) as ModelInfo;

describe("a model's name as the user reads it", () => {
  it("names a server's model by its own name beside its server's label, an Ollama model as it is", () => {
    expect(modelDisplayName("qwen3@llama", model("qwen3@llama", "llama"))).toBe("qwen3 · llama");
    expect(modelDisplayName("gemma:2b", model("gemma:2b"))).toBe("gemma:2b");
  });

  it("splits a name no longer listed at its last @ only when a label can follow it", () => {
    expect(modelNameParts("Qwen/Qwen3-8B@gpu.1")).toEqual({ model: "Qwen/Qwen3-8B", server: "gpu.1" });
    expect(modelNameParts("llama3@sha256:abc")).toEqual({ model: "llama3@sha256:abc", server: null });
    expect(modelNameParts("@llama")).toEqual({ model: "@llama", server: null });
  });

  it("groups Ollama's models first, then each server's, a name two servers have once per server", () => {
    const groups = groupModels([
      model("qwen3@llama", "llama"),
      model("gemma:2b"),
      model("qwen3@gpu", "gpu"),
      model("phi3:mini"),
    ]);
    expect(groups.map((group) => [group.server, group.models.map((m) => m.name)])).toEqual([
      [null, ["gemma:2b", "phi3:mini"]],
      ["llama", ["qwen3@llama"]],
      ["gpu", ["qwen3@gpu"]],
    ]);
  });

  it("leaves out an empty Ollama group", () => {
    expect(groupModels([model("qwen3@llama", "llama")]).map((group) => group.server)).toEqual(["llama"]);
  });
});
